import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  callTimeoutMs,
  type DepartureGate,
  describeFetchFailure,
  excerpt,
  depart,
  LateDepartureError,
  ProviderError,
} from '../providers.ts';
import { forbiddenAddressReason, isIpLiteral } from '../../kernel/destination-policy.ts';
import { ForbiddenDestinationError, guardedLookup } from '../../kernel/adapters/guarded-lookup.ts';
import { parseBoundedJson } from '../../kernel/json-shape.ts';

/** An HTTP answer from a channel provider (its body read up to a cap). */
export interface ProviderHttpResponse {
  status: number;
  text: string;
}

/**
 * POSTs to a provider API; rejects on timeout (`AbortError`), refused destination or network failure. With a
 * `departure`, the request is made only once the gate lets it through.
 */
export type ProviderPost = (
  url: string,
  request: { headers: Record<string, string>; body: string; timeoutMs: number; departure?: DepartureGate },
) => Promise<ProviderHttpResponse>;

/** Provider answers are small JSON documents; anything longer is cut (only an error excerpt is ever used). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * How long a kept-alive connection may sit idle before this client closes it, and the cap on a server's
 * `Keep-Alive: timeout=N` (honoured a second early: Node's agent ignores the hint unless given such a cap). A
 * connection the server has just closed but this process has not yet noticed (a busy event loop reads the close late)
 * takes the next request and answers it with a reset: the provider never saw it, the message ends failed ("could not
 * be reached"), and a POST is never sent again, since a reset alone cannot tell whether the provider got it. Closing
 * idle connections before the server does leaves no such race. 4 s: below the idle close of the common servers
 * (Node's and Apache's 5 s, which also send the hint; load balancers and nginx wait a minute or more); a connection
 * opened again after 4 s of silence costs one handshake.
 */
export const IDLE_SOCKET_MS = 4_000;

/** The keep-alive agents' options: idle connections closed before the server would (see {@link IDLE_SOCKET_MS}). */
function agentOptions(maxSockets: number, lookup: ReturnType<typeof guardedLookup>, scheduling: 'fifo' | 'lifo') {
  // `timeout` on an agent only closes its idle sockets (and caps the server's hint); a request in progress is bounded
  // by its own deadline (the `signal` below), not by this.
  return { keepAlive: true, maxSockets, lookup, timeout: IDLE_SOCKET_MS, scheduling };
}

/**
 * The HTTP client of the channel providers (Twilio, WhatsApp Cloud): keep-alive connections, a deadline on the
 * whole exchange, no redirects, and the webhooks' SSRF guard on the address actually connected to (a base URL
 * or a DNS name that leads into a private network is refused unless private destinations are allowed).
 */
export function makeProviderPost(options: { allowPrivate: boolean }): ProviderPost {
  const lookup = guardedLookup({ allowPrivate: options.allowPrivate });
  // Round robin over the kept connections: a paced drain keeps every one of them busy, none left idle long enough to
  // be closed, so a burst after a stall finds them open. Handed out last-in first-out (Node's default), the ones at
  // the bottom idled out and each burst opened new ones, whose bytes left after the handshake: beside the slot's next
  // sends, above the pace at the provider.
  const httpAgent = new HttpAgent(agentOptions(64, lookup, 'fifo'));
  const httpsAgent = new HttpsAgent(agentOptions(64, lookup, 'fifo'));

  return (url, { headers, body, timeoutMs, departure }) => {
    const target = new URL(url);
    const https = target.protocol === 'https:';
    if (!options.allowPrivate && isIpLiteral(target.hostname)) {
      const reason = forbiddenAddressReason(target.hostname);
      if (reason) return Promise.reject(new ForbiddenDestinationError(target.hostname, reason));
    }
    const giveUpAt = Date.now() + timeoutMs;
    const post = () =>
      new Promise<ProviderHttpResponse>((resolve, reject) => {
        const req = (https ? httpsRequest : httpRequest)(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            agent: https ? httpsAgent : httpAgent,
            signal: AbortSignal.timeout(timeoutMs),
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
              size += chunk.length;
            });
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                text: Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE_BYTES),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        if (!departure) return void req.end(body);
        // The request's bytes are handed over once it has a connection up: on a kept-alive one at once (Node writes
        // them to the kernel within `end`), on a new one after its handshake. The gate is asked again right there,
        // with nothing between its answer and the write: a new connection's handshake (tens to hundreds of ms on a
        // loaded machine) would otherwise put its send beside the slot's next ones. Found late there (rare: a new
        // connection, a stall of the loop), the send holds that connection while it takes its slot again.
        const leave = () =>
          depart(departure, () => req.end(body), giveUpAt).catch((error: unknown) => {
            req.destroy();
            reject(error);
          });
        req.once('socket', (socket) => {
          if (req.reusedSocket) leave();
          else socket.once(https ? 'secureConnect' : 'connect', leave);
        });
      });
    // A paced send's gate is asked first, before the request is made, holding no connection: a late send takes its slot
    // again meanwhile (a connection held by each late send made the pool open new ones, slower still and late in
    // turn: a 10,000 drain at 80 ran at half the pace). Most sends are then on time when asked again at the write.
    return depart(departure, post, giveUpAt);
  };
}

/** A GET answer from a provider's media host: status, headers, and the body (at most `maxBytes`). */
export interface ProviderGetResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GETs from a provider (media downloads); rejects on timeout, refused destination, network failure or a body over `maxBytes`. */
export type ProviderGet = (
  url: string,
  request: { headers: Record<string, string>; timeoutMs: number; maxBytes: number },
) => Promise<ProviderGetResponse>;

/** A download stopped because its body passed the caller's cap (`Content-Length` or the bytes counted). */
export class ResponseTooLargeError extends Error {
  readonly code = 'ERESPONSETOOLARGE';
  constructor(readonly maxBytes: number) {
    super(`The response is larger than ${maxBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * The GET side of the provider client, for media: the same guarded agents (SSRF checked on the address connected to),
 * a deadline on the whole exchange, no redirects followed (the caller decides where credentials may go), and the body
 * counted as it streams: a declared or counted size over `maxBytes` stops the download.
 */
export function makeProviderGet(options: { allowPrivate: boolean }): ProviderGet {
  const lookup = guardedLookup({ allowPrivate: options.allowPrivate });
  const httpAgent = new HttpAgent(agentOptions(16, lookup, 'lifo'));
  const httpsAgent = new HttpsAgent(agentOptions(16, lookup, 'lifo'));

  return (url, { headers, timeoutMs, maxBytes }) => {
    const target = new URL(url);
    const https = target.protocol === 'https:';
    if (target.protocol !== 'https:' && target.protocol !== 'http:')
      return Promise.reject(new Error(`Unsupported protocol ${target.protocol}`));
    if (!options.allowPrivate && isIpLiteral(target.hostname.replace(/^\[|\]$/g, ''))) {
      const reason = forbiddenAddressReason(target.hostname.replace(/^\[|\]$/g, ''));
      if (reason) return Promise.reject(new ForbiddenDestinationError(target.hostname, reason));
    }
    return new Promise<ProviderGetResponse>((resolve, reject) => {
      const req = (https ? httpsRequest : httpRequest)(
        target,
        {
          method: 'GET',
          headers,
          agent: https ? httpsAgent : httpAgent,
          signal: AbortSignal.timeout(timeoutMs),
        },
        (res) => {
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes) {
            res.destroy();
            req.destroy();
            return reject(new ResponseTooLargeError(maxBytes));
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              res.destroy();
              req.destroy();
              reject(new ResponseTooLargeError(maxBytes));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  };
}

/** `{base}{path}` with the base URL's trailing slashes dropped (a channel may override a provider's base URL). */
export function providerUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** What every provider sender is built with: its per-call limit, its user agent, and the HTTP client. */
export interface ProviderClient {
  /** Milliseconds one call may take (cut short by the send's deadline). */
  timeoutMs: number;
  userAgent: string;
  post: ProviderPost;
}

/** One call to a provider's API, as a sender describes it. */
export interface ProviderCall {
  /** The provider's name in error messages ("Twilio", "WhatsApp Cloud API"). */
  provider: string;
  url: string;
  /** The call's own headers (authorization, content type); JSON is always asked for. */
  headers: Record<string, string>;
  body: string;
  /** Epoch ms past which the send may not wait (see {@link callTimeoutMs}). */
  deadline: number;
  /** Which call of a send made of several this is ("file 2 of 3"), named in error messages. */
  part?: string;
  /** Provider ids of what the same send already got out, kept on the error when this call fails. */
  sentSoFar?: readonly string[];
  /** A paced send's slot, asked right before this call's request leaves (a send's first call only). */
  departure?: DepartureGate;
  /** Where the provider's error answer keeps its `{ code, message }` (Twilio: the body; Graph API: `error`). */
  errorOf: (answer: Record<string, unknown>) => unknown;
}

/**
 * Makes one provider call and reads its answer, the same way for every provider: not reaching the provider and a
 * non-2xx answer throw a {@link ProviderError} that names the provider, the part, and for an answer its status and
 * the provider's own code and message (an excerpt, never a credential). Resolves with the JSON answer (undefined
 * when the body is not a JSON object).
 */
export async function callProvider(
  client: ProviderClient,
  call: ProviderCall,
): Promise<Record<string, unknown> | undefined> {
  const part = call.part === undefined ? '' : ` (${call.part})`;
  const sentProviderMessageIds = [...(call.sentSoFar ?? [])];
  let response: ProviderHttpResponse;
  try {
    response = await client.post(call.url, {
      headers: { ...call.headers, accept: 'application/json', 'user-agent': client.userAgent },
      body: call.body,
      timeoutMs: callTimeoutMs(client.timeoutMs, call.deadline),
      ...(call.departure ? { departure: call.departure } : {}),
    });
  } catch (error) {
    // Nothing left: not the provider's failure (the send gives its turn back).
    if (error instanceof LateDepartureError) throw error;
    throw new ProviderError(`${describeFetchFailure(call.provider, error)}${part}`, {
      cause: error,
      sentProviderMessageIds,
    });
  }
  const answer = jsonObject(response.text);
  if (response.status < 200 || response.status > 299) {
    const error = answer ? call.errorOf(answer) : undefined;
    const detail = answer ? providerErrorDetail(error) : '';
    throw new ProviderError(`${call.provider} answered HTTP ${response.status}${part}${detail}`, {
      sentProviderMessageIds,
      rateLimited: response.status === 429 || TOO_MANY_REQUESTS_CODES.has(Number((error as { code?: unknown })?.code)),
    });
  }
  return answer;
}

/**
 * Provider error codes that mean "too many requests" whatever the HTTP status: Twilio's 20429 (too many requests) and
 * 14107 (message rate exceeded); Meta's 4 (app rate limit), 80007 (account rate limit), 130429 (throughput),
 * 131048 (spam rate limit) and 131056 (pair rate limit). Paced sends retry these instead of failing.
 */
const TOO_MANY_REQUESTS_CODES = new Set([20429, 14107, 4, 80007, 130429, 131048, 131056]);

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = parseBoundedJson(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `: <code> <message>` from a provider's error object; nothing when it carries no message. */
function providerErrorDetail(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return '';
  return `: ${excerpt(`${code === undefined ? '' : `${String(code)} `}${message}`)}`;
}
