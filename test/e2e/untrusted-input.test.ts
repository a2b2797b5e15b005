import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { ISSUE_BOMBS, pdfBomb } from '#test/support/pdf-bombs.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * Issue 27 against the running service (contract §15): no input stalls it, swells it, or buys work for free. The PDFs
 * the text scan let through (the 2 KB Brotli file, `/Fl`, `/Flat#65Decode`, `/Filter` by reference, a dictionary past
 * 4 KB) answer 400 VALIDATION_ERROR and cost nothing, as extract requests and as knowledge files; a mail whose only
 * part is 320,000 `<` arrives promptly and holds up no one else's webhook; a JSON body nested 5 million deep is a 400.
 * Also run against the deploy bundles (the `bundles` group).
 */
let svc: ServiceClient;
let receiver: TestReceiver;
beforeAll(async () => {
  [svc, receiver] = await Promise.all([sharedService(), startReceiver()]);
});
afterAll(async () => Promise.all([svc?.close(), receiver?.close()]));

const BOUNDARY = 'untrusted-input-boundary';
async function extract(token: string, pdf: Uint8Array) {
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="doc.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    Buffer.from(pdf),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  const res = await fetch(`${svc.baseUrl}/api/v1/ai/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('POST /api/v1/ai/extract: PDFs that decode past a ceiling (contract §15)', () => {
  it.each(ISSUE_BOMBS)('%s: 400 VALIDATION_ERROR within seconds, nothing charged', async (name) => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const bomb = await pdfBomb(name).make();
    const started = performance.now();
    const res = await extract(token, bomb);
    // Measured within 1 s on a quiet machine (BENCHMARKS.md); before, the Brotli file took 65 s and 1.7 GB.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'VALIDATION_ERROR',
      details: [{ path: 'file', code: 'too_large' }],
    });
    expect(res.body.message).toMatch(/decodes to more than 16 MB/);
    expect(await svc.botBalance(projectId)).toBe(3);
  });

  it('an ordinary PDF read right after a bomb is charged as usual', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    expect((await extract(token, await pdfBomb('brotli').make())).status).toBe(400);
    const { textPdf } = await import('#test/support/pdf-fixtures.ts');
    const res = await extract(token, await textPdf(['Depois da bomba']));
    expect(res.status).toBe(200);
    expect(res.body.result).toBe('Depois da bomba');
    expect(await svc.botBalance(projectId)).toBe(2);
  });
});

describe('knowledge files that decode past a ceiling', () => {
  it('end failed with the size reason, each of the issue’s files', async () => {
    const { projectId } = await svc.newProject();
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Bombas', instructions: 'x' });
    expect(bot.status).toBe(201);
    for (const name of ISSUE_BOMBS)
      expect(
        (await svc.putKnowledge(projectId, bot.body.botId, `${name}.pdf`, await pdfBomb(name).make())).status,
      ).toBe(202);
    const items = await eventually(
      async () => {
        const res = await svc.admin('GET', `/projects/${projectId}/bots/${bot.body.botId}/knowledge`);
        const list = res.body.items as { fileName: string; status: string; error?: string }[];
        return list.length === ISSUE_BOMBS.length && list.every((i) => i.status !== 'processing') ? list : undefined;
      },
      60_000,
      'every bomb settled',
    );
    for (const item of items)
      expect(item, item.fileName).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/decodes to more than 16 MB; it was not read/),
      });
  }, 90_000);
});

describe('a mail whose only part is 320,000 "<" (sent over SMTP)', () => {
  it('becomes message.received promptly, and a webhook.test queued beside it is not held up', async () => {
    const { projectId } = await svc.newProject();
    const address = `support-${randomBytes(4).toString('hex')}@inbound.example.com`;
    const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
      name: 'mailbox',
      type: 'email',
      address,
    });
    expect(channel.status).toBe(201);
    const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiver.url,
    });
    expect(webhook.status).toBe(201);
    const mine = (type: string) =>
      receiver.received.filter((d) => d.json?.projectId === projectId && d.json.type === type);

    // multipart/mixed with one text/html part: the path that ran two quadratic regexes (65 s before).
    const raw = Buffer.from(
      `From: attacker@example.org\r\nTo: ${address}\r\nSubject: lt\r\nMessage-ID: <lt-${randomBytes(4).toString('hex')}@example.org>\r\n` +
        `MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: text/html\r\n\r\n` +
        `${'<'.repeat(320_000)}\r\n--B--\r\n`,
    );
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: svc.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    const sent = performance.now();
    await transport.sendMail({ envelope: { from: 'attacker@example.org', to: [address] }, raw });
    const test = await svc.admin('POST', `/projects/${projectId}/integrations/${webhook.body.integrationId}/test`);
    expect(test.status).toBe(202);
    const queued = performance.now();

    await eventually(async () => (mine('webhook.test').length ? true : undefined), 15_000, 'webhook.test delivered');
    const testDelivered = performance.now() - queued;
    const [received] = await eventually(
      async () => (mine('message.received').length ? mine('message.received') : undefined),
      15_000,
      'message.received',
    );
    const mailDelivered = performance.now() - sent;
    // Measured: message.received within 2 s and the webhook.test within 1 s (BENCHMARKS.md); generous here, as the
    // machine running the tests is shared. Before, 65 s for both.
    expect(mailDelivered).toBeLessThan(10_000);
    expect(testDelivered).toBeLessThan(5_000);
    expect(received!.json.data).toMatchObject({
      from: 'attacker@example.org',
      subject: 'lt',
      text: '<'.repeat(320_000),
    });
    expect(received!.json.data).not.toHaveProperty('truncated');
  }, 60_000);
});

describe('JSON bodies past their shape ceilings', () => {
  it('a body nested 5 million deep answers 400 VALIDATION_ERROR at once (JSON.parse took 5.8 s and 290 MB)', async () => {
    const { token } = await svc.newProject();
    const deep = `{"prompt":${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}}`;
    const started = performance.now();
    const res = await svc.botsApi(token, 'completion', deep, { 'content-type': 'application/json' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'VALIDATION_ERROR',
      details: [{ path: '', code: 'too_big' }],
    });
    expect(res.body.message).toMatch(/deeper than 64 levels/);
  });
});
