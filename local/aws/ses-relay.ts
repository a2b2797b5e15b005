import type { Outcome } from './ses-events.ts';

/**
 * Relays a message to an SMTP server (the SES stand-in's optional `relaySmtpUrl`), as SES hands mail to the
 * recipient's server: each recipient the server accepts is delivered (with its answer as `smtpResponse`), one it
 * refuses with a 5xx bounces permanently, and one that could not be handed over (4xx, no connection) bounces as
 * transient (SES would retry, then soft-bounce).
 */
export async function relayMail(url: string, from: string, to: string[], raw: Buffer): Promise<Map<string, Outcome>> {
  const { loadNodemailer } = await import('#shared/kernel/adapters/load-nodemailer.ts');
  const nodemailer = await loadNodemailer();
  const transport = nodemailer.createTransport(url);
  const outcomes = new Map<string, Outcome>();
  const bounce = (address: string, code: number, response: string) =>
    outcomes.set(address, {
      kind: 'bounced',
      bounceType: code >= 500 ? 'Permanent' : 'Transient',
      subType: 'General',
      status: code >= 500 ? '5.0.0' : '4.0.0',
      diagnosticCode: `smtp; ${response}`,
    });
  try {
    const info = await transport.sendMail({ envelope: { from, to }, raw });
    for (const address of info.accepted)
      outcomes.set(String(address), { kind: 'delivered', smtpResponse: info.response });
    for (const address of info.rejected) bounce(String(address), 550, info.response);
  } catch (error) {
    const failure = error as { responseCode?: number; response?: string; message?: string };
    for (const address of to) bounce(address, failure.responseCode ?? 421, failure.response ?? String(failure.message));
  } finally {
    transport.close();
  }
  return outcomes;
}
