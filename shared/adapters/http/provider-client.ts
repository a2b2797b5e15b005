import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { forbiddenAddressReason, isIpLiteral } from '../../webhooks/destination-policy.ts';
import { ForbiddenDestinationError, guardedLookup } from './guarded-lookup.ts';

/** An HTTP answer from a channel provider (its body read up to a cap). */
export interface ProviderHttpResponse {
  status: number;
  text: string;
}

/** POSTs to a provider API; rejects on timeout (`AbortError`), refused destination or network failure. */
export type ProviderPost = (
  url: string,
  request: { headers: Record<string, string>; body: string; timeoutMs: number },
) => Promise<ProviderHttpResponse>;

/** Provider answers are small JSON documents; anything longer is cut (only an error excerpt is ever used). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * The HTTP client of the channel providers (Twilio, WhatsApp Cloud): keep-alive connections, a deadline on the
 * whole exchange, no redirects, and the webhooks' SSRF guard on the address actually connected to (a base URL
 * or a DNS name that leads into a private network is refused unless private destinations are allowed).
 */
export function makeProviderPost(options: { allowPrivate: boolean }): ProviderPost {
  const lookup = guardedLookup({ allowPrivate: options.allowPrivate });
  const agentOptions = { keepAlive: true, maxSockets: 64, lookup };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);

  return (url, { headers, body, timeoutMs }) => {
    const target = new URL(url);
    const https = target.protocol === 'https:';
    if (!options.allowPrivate && isIpLiteral(target.hostname)) {
      const reason = forbiddenAddressReason(target.hostname);
      if (reason) return Promise.reject(new ForbiddenDestinationError(target.hostname, reason));
    }
    return new Promise<ProviderHttpResponse>((resolve, reject) => {
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
      req.end(body);
    });
  };
}
