import { isIpLiteral } from '../destination-policy.ts';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';

/** An SMTP server to send through, and how far it must be trusted with the mail and the credentials. */
export interface SmtpServer {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (`smtps:`, port 465); otherwise the connection must upgrade with STARTTLS. */
  secure: boolean;
  /** Explicit consent to send (credentials included) without TLS when the server offers no STARTTLS. */
  allowPlaintext: boolean;
  user?: string;
  pass?: string;
}

/**
 * An `smtp://` or `smtps://` URL as an {@link SmtpServer}: `user:pass@` (percent-decoded) for the login, the port
 * (default 587, or 465 for `smtps:`), and `?allowPlaintext=true` to send in clear to a server without STARTTLS.
 */
export function smtpServerFromUrl(text: string): SmtpServer {
  const url = new URL(text);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('an smtp:// or smtps:// URL is needed');
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!host) throw new Error('the SMTP URL names no host');
  const allow = url.searchParams.get('allowPlaintext');
  if (allow !== null && allow !== 'true' && allow !== 'false') throw new Error('allowPlaintext is true or false');
  return {
    host,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    allowPlaintext: allow === 'true',
    ...(url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : {}),
  };
}

/**
 * nodemailer's transport options for `server`: TLS is required (implicit with `secure`, else STARTTLS before
 * anything else is sent, the login included) unless the server allows plaintext; a server that offers no STARTTLS
 * then fails the send before any credential leaves. `address`: where to connect when the name was resolved (and
 * checked) beforehand; the certificate is still checked against the name. Every phase has `timeoutMs`; no file or URL
 * in a message is ever read.
 */
export function smtpTransportOptions(
  server: SmtpServer,
  timeoutMs: number,
  address: string = server.host,
): SMTPTransport.Options {
  return {
    host: address,
    ...(isIpLiteral(server.host) ? {} : { servername: server.host }),
    port: server.port,
    secure: server.secure,
    requireTLS: !server.secure && !server.allowPlaintext,
    ...(server.user ? { auth: { user: server.user, pass: server.pass ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
