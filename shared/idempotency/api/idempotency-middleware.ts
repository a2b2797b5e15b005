import { createHash, randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../idempotency-store.ts';
import type { Logger } from '../../kernel/logger.ts';
import { asHttpError } from '../../http/domain-errors.ts';
import { HttpError } from '../../http/errors.ts';
import { bodyBytes, errorResponse } from '../../http/middleware.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';

const KEY_HEADER = 'idempotency-key';
const RETENTION_MS = 24 * 3600 * 1000;

/**
 * Which outcomes are kept for replay. As Stripe does: a request refused before any work (invalid JSON, validation,
 * body too large, over a rate limit) is not kept, so a corrected or later retry with the same key goes through; a
 * server-side failure (5xx, a busy store's 503 included) is not kept either, so a retry runs again (nothing was sent
 * or charged: failures after a charge are refunded). Everything else (2xx, 402, 403, 404, 409...) is kept and replayed.
 */
function isReplayable(status: number): boolean {
  return status < 500 && status !== 400 && status !== 413 && status !== 429;
}

export interface IdempotencyOptions<TEvent extends HttpEvent = HttpEvent> {
  store: IdempotencyStore;
  logger: Logger;
  /** Whose keys these are (an integration, a project): keys of different callers never collide. */
  scope: (event: TEvent) => string;
  /** How long a request holds its key before a retry may take over (the function's timeout plus margin). */
  lockSeconds: number;
  now?: () => number;
}

/**
 * `Idempotency-Key` (1-255 chars), used after authentication: the same key with the same request within 24 h
 * returns the stored response with `Idempotent-Replayed: true` and does nothing again; the same key with another
 * request: 409 IDEMPOTENCY_KEY_REUSED; while the first is still running: 409 IDEMPOTENCY_IN_PROGRESS.
 * Without the header it costs nothing.
 */
export function idempotency<TEvent extends HttpEvent = HttpEvent>(
  options: IdempotencyOptions<TEvent>,
): MiddlewareObj<TEvent, HttpResult> {
  const now = options.now ?? Date.now;
  const claims = new WeakMap<HttpEvent, IdempotencyClaim>();

  async function finish(event: HttpEvent, response: HttpResult | undefined) {
    const claim = claims.get(event);
    if (!claim) return;
    claims.delete(event);
    try {
      if (response && isReplayable(response.statusCode)) await options.store.complete(claim, toStored(response));
      else await options.store.release(claim);
    } catch (cause) {
      // The caller already has its answer; a retry will see "in progress" until the lock expires, never a double send.
      options.logger.error('idempotency record not finalized', { cause: String(cause) });
    }
  }

  return {
    name: 'idempotency',
    before: async (request) => {
      const event = request.event;
      const key = event.normalizedHeaders[KEY_HEADER];
      if (key === undefined) return;
      if (key.length < 1 || key.length > 255) {
        throw new HttpError(400, 'VALIDATION_ERROR', 'The Idempotency-Key header must be 1 to 255 characters.', {
          details: [{ path: 'Idempotency-Key', message: 'Must be 1 to 255 characters', code: 'too_big' }],
        });
      }
      const claim: IdempotencyClaim = {
        scope: options.scope(event),
        key,
        fingerprint: fingerprint(event),
        owner: randomUUID(),
        now: now(),
        lockMs: options.lockSeconds * 1000,
        retentionMs: RETENTION_MS,
      };
      const result = await options.store.claim(claim);
      switch (result.kind) {
        case 'claimed':
          claims.set(event, claim);
          event.idempotency = { scope: claim.scope, key, firstClaimedAt: result.firstClaimedAt };
          return;
        case 'replay':
          return {
            statusCode: result.response.statusCode,
            headers: {
              ...event.responseHeaders,
              ...result.response.headers,
              'Idempotent-Replayed': 'true',
              'x-request-id': event.requestId,
            },
            body: result.response.body,
            ...(result.response.isBase64Encoded ? { isBase64Encoded: true } : {}),
          };
        case 'mismatch':
          throw new HttpError(
            409,
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was already used with a different request.',
          );
        case 'in-progress':
          throw new HttpError(
            409,
            'IDEMPOTENCY_IN_PROGRESS',
            'A request with this Idempotency-Key is still being processed; retry later.',
            {
              headers: { 'Retry-After': '1' },
            },
          );
      }
    },
    after: async (request) => {
      await finish(request.event, request.response ?? undefined);
    },
    onError: async (request) => {
      const error = asHttpError(request.error);
      const response = error instanceof HttpError ? errorResponse(error, request.event.requestId) : undefined;
      await finish(request.event, response);
    },
  };
}

function fingerprint(event: HttpEvent): string {
  return createHash('sha256').update(`${event.httpMethod} ${event.path}\n`).update(bodyBytes(event)).digest('hex');
}

function toStored(response: HttpResult): StoredResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'x-request-id' || lower.startsWith('ratelimit-') || lower === 'retry-after') continue;
    headers[name] = String(value);
  }
  return {
    statusCode: response.statusCode,
    headers,
    body: response.body,
    ...(response.isBase64Encoded ? { isBase64Encoded: true } : {}),
  };
}
