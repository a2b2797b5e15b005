import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { forbiddenAddressReason, isIpLiteral } from '../../kernel/destination-policy.ts';
import type { AttemptOutcome, WebhookRequest, WebhookSender } from '../sender.ts';
import { ForbiddenDestinationError, guardedLookup } from '../../kernel/adapters/guarded-lookup.ts';

export interface HttpWebhookSenderOptions {
  /** Deadline of one attempt, connect to last byte (contract: 15 s). */
  timeoutMs: number;
  /** Local runs deliver to 127.0.0.1; deployments never to private networks. */
  allowPrivate: boolean;
  /** Keep-alive sockets per destination host. */
  maxSocketsPerHost?: number;
  /** For tests: a resolver in place of the system DNS. */
  lookup?: LookupFunction;
}

/** Bytes of a receiver's answer read (and thrown away) before the socket is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs deliveries over HTTP(S) with a hard deadline per attempt, no redirects followed (a 3xx is a failure: a
 * redirect could lead into our network), and the SSRF guard on the address actually connected to: names through
 * {@link guardedLookup}, IP literals (`http://2130706433/`, `http://[::ffff:127.0.0.1]/` once the URL parser has
 * normalised them) checked before connecting. Sockets are kept alive per host, which is most of the speed on a
 * busy endpoint.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;
  private readonly lookup: LookupFunction;

  constructor(private readonly options: HttpWebhookSenderOptions) {
    this.lookup = options.lookup ?? guardedLookup({ allowPrivate: options.allowPrivate });
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.maxSocketsPerHost ?? 64,
      maxFreeSockets: 16,
      timeout: 4_000,
      scheduling: 'lifo' as const,
    };
    this.httpAgent = new HttpAgent(agentOptions);
    this.httpsAgent = new HttpsAgent(agentOptions);
  }

  async send(request: WebhookRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { kind: 'network', durationMs: 0, error: 'invalid URL' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { kind: 'forbidden', durationMs: 0, error: `unsupported scheme ${url.protocol}` };
    if (url.username || url.password)
      return { kind: 'forbidden', durationMs: 0, error: 'credentials in the URL are not sent' };
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (!this.options.allowPrivate && isIpLiteral(host)) {
      const reason = forbiddenAddressReason(host);
      if (reason) return { kind: 'forbidden', durationMs: 0, error: `destination is a ${reason} address; refused` };
    }

    const deadline = Date.now() + this.options.timeoutMs;
    let outcome = await this.post(url, host, request, deadline, elapsed);
    // A kept-alive socket the receiver closed while idle fails before the receiver saw anything: try once more.
    if (outcome === 'stale-socket') outcome = await this.post(url, host, request, deadline, elapsed, true);
    return outcome === 'stale-socket' ? { kind: 'network', durationMs: elapsed(), error: 'connection reset' } : outcome;
  }

  private post(
    url: URL,
    host: string,
    request: WebhookRequest,
    deadline: number,
    elapsed: () => number,
    freshSocket = false,
  ): Promise<AttemptOutcome | 'stale-socket'> {
    return new Promise((resolve) => {
      const https = url.protocol === 'https:';
      const body = Buffer.from(request.body, 'utf8');
      let settled = false;
      let req: ClientRequest | undefined;
      const finish = (outcome: AttemptOutcome | 'stale-socket') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const timer = setTimeout(
        () => {
          finish({ kind: 'timeout', durationMs: elapsed(), error: `no answer within ${this.options.timeoutMs} ms` });
          req?.destroy();
        },
        Math.max(0, deadline - Date.now()),
      );

      const send = https ? httpsRequest : httpRequest;
      req = send({
        protocol: url.protocol,
        hostname: host,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(body.length) },
        agent: freshSocket ? false : https ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
        ...(https ? { servername: isIpLiteral(host) ? undefined : host } : {}),
      });
      req.on('response', (res: IncomingMessage) => {
        const statusCode = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const retryAfter = res.headers['retry-after'];
        const done = () => finish(classify(statusCode, elapsed(), retryAfter));
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (!freshSocket && req?.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
          return finish('stale-socket');
        if (error instanceof ForbiddenDestinationError)
          return finish({ kind: 'forbidden', durationMs: elapsed(), error: error.message });
        finish({ kind: 'network', durationMs: elapsed(), error: describeNetworkError(error) });
      });
      req.end(body);
    });
  }

  /** Closes kept-alive sockets (tests, shutdown). */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function classify(statusCode: number, durationMs: number, retryAfter: string | undefined): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'success', statusCode, durationMs };
  const error =
    statusCode >= 300 && statusCode < 400 ? `redirect (HTTP ${statusCode}) not followed` : `HTTP ${statusCode}`;
  return { kind: 'http-error', statusCode, durationMs, error, ...(retryAfter ? { retryAfter } : {}) };
}

/** A short, safe description: the error code and what it means, never a stack. */
function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
      return 'connect timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS certificate rejected (${error.code})`;
    default:
      return error.code ? `network error (${error.code})` : 'network error';
  }
}
