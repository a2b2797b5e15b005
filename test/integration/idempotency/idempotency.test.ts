import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoIdempotencyStore } from '#shared/idempotency/adapters/dynamo-idempotency-store.ts';
import { HttpError } from '#shared/http/errors.ts';
import { NoChannelCreditsError } from '#shared/messaging/index.ts';
import { httpFunction, jsonBody } from '#shared/http/middleware.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import { idempotency } from '#shared/idempotency/api/idempotency-middleware.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let env: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

/** A handler that counts how often its work really runs, behind the Idempotency-Key middleware. */
function countingHandler(
  outcome: (body: any) => Promise<unknown> | unknown,
  opts: { lockSeconds?: number; now?: () => number } = {},
) {
  const logger = createLogger('test');
  let runs = 0;
  const handler = httpFunction(logger)
    .use(
      idempotency({
        store: new DynamoIdempotencyStore(env.table),
        logger,
        scope: () => 'scope-1',
        lockSeconds: opts.lockSeconds ?? 60,
        now: opts.now,
      }),
    )
    .use(jsonBody())
    .handler(async (event: HttpEvent) => {
      runs++;
      const result = await outcome(event.parsedBody);
      return json(200, { success: true, result, run: runs });
    });
  const call = (key: string | undefined, body: string) =>
    handler(
      apiEvent({ path: '/x', headers: key === undefined ? {} : { 'Idempotency-Key': key }, body }),
      lambdaContext,
    );
  return { call, runs: () => runs };
}

describe('Idempotency-Key', () => {
  it('replays the stored response for the same key and body, doing the work once', async () => {
    const h = countingHandler(() => 'done');
    const first = await h.call('k-1', '{"a":1}');
    const second = await h.call('k-1', '{"a":1}');
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers?.['Idempotent-Replayed']).toBe('true');
    expect(h.runs()).toBe(1);
  });

  it('refuses the same key with another body: 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const h = countingHandler(() => 'done');
    await h.call('k-2', '{"a":1}');
    const other = await h.call('k-2', '{"a":2}');
    expect(other.statusCode).toBe(409);
    expect(JSON.parse(other.body).error).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(h.runs()).toBe(1);
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS while the first request runs, and runs once under concurrency', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const h = countingHandler(() => {
      started();
      return gate;
    });
    const first = h.call('k-3', '{}');
    await running; // the first request holds the key and its work has begun
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => h.call('k-3', '{}')));
    for (const c of concurrent) expect(JSON.parse(c.body).error).toBe('IDEMPOTENCY_IN_PROGRESS');
    release();
    expect((await first).statusCode).toBe(200);
    expect((await h.call('k-3', '{}')).headers?.['Idempotent-Replayed']).toBe('true');
    expect(h.runs()).toBe(1);
  });

  it('keeps a 4xx outcome (a domain error too) but lets a retry run again after a 5xx or a validation error', async () => {
    let mode: 'payment' | 'crash' | 'ok' = 'crash';
    const h = countingHandler(() => {
      if (mode === 'crash') throw new HttpError(502, 'PROVIDER_ERROR', 'provider down');
      if (mode === 'payment') throw new NoChannelCreditsError();
      return 'sent';
    });
    expect((await h.call('k-4', '{}')).statusCode).toBe(502);
    mode = 'ok';
    expect((await h.call('k-4', '{}')).statusCode).toBe(200);
    expect(h.runs()).toBe(2);

    mode = 'payment';
    expect((await h.call('k-5', '{}')).statusCode).toBe(402);
    mode = 'ok';
    const replayed = await h.call('k-5', '{}');
    expect(replayed.statusCode).toBe(402);
    expect(replayed.headers?.['Idempotent-Replayed']).toBe('true');

    const invalid = await h.call('k-6', '{not json');
    expect(JSON.parse(invalid.body).error).toBe('INVALID_JSON');
    const fixed = await h.call('k-6', '{not json');
    expect(fixed.headers?.['Idempotent-Replayed']).toBeUndefined();
  });

  it('lets a retry take over a key whose request died (lock expired), and validates the key length', async () => {
    let clock = Date.now();
    const h = countingHandler(() => 'ok', { lockSeconds: 1, now: () => clock });
    const store = new DynamoIdempotencyStore(env.table);
    // A request that claimed the key and then crashed (never completed nor released).
    await store.claim({
      scope: 'scope-1',
      key: 'k-7',
      fingerprint: 'x',
      owner: 'dead',
      now: clock,
      lockMs: 1000,
      retentionMs: 86_400_000,
    });
    clock += 2_000;
    expect((await h.call('k-7', '{}')).statusCode).toBe(409); // another fingerprint: a different request
    const sameRequest = createHash('sha256').update('POST /x\n').update('{}').digest('hex');
    await store.claim({
      scope: 'scope-1',
      key: 'k-8',
      fingerprint: sameRequest,
      owner: 'dead',
      now: clock,
      lockMs: 1000,
      retentionMs: 86_400_000,
    });
    expect(JSON.parse((await h.call('k-8', '{}')).body).error).toBe('IDEMPOTENCY_IN_PROGRESS');
    clock += 2_000;
    expect((await h.call('k-8', '{}')).statusCode).toBe(200);
    expect(h.runs()).toBe(1);
    const long = await h.call('x'.repeat(256), '{}');
    expect(long.statusCode).toBe(400);
    expect(JSON.parse(long.body).details[0].path).toBe('Idempotency-Key');
    expect((await h.call(undefined, '{}')).statusCode).toBe(200);
  });
});
