import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoRateLimiter, DynamoRateLimitStore } from '#shared/ratelimit/adapters/dynamo-rate-limiter.ts';
import { newId } from '#shared/kernel/ids.ts';
import { DependencyOverloadedError } from '#shared/kernel/overload.ts';
import { gcraParams, gcraStep, perSecondParams } from '#shared/ratelimit/gcra.ts';
import { shardCount } from '#shared/ratelimit/shards.ts';
import { startTestTable } from '#test/support/dynamo.ts';
import { throttleFile } from '#test/support/throttles.ts';

let env: Awaited<ReturnType<typeof startTestTable>>;
let limiter: DynamoRateLimiter;
/** A client that does not retry: a throttle fails at once (the SDK's backoff is not what is tested). */
let oneAttempt: DynamoDBDocumentClient;
const p = gcraParams(60);
beforeAll(async () => {
  env = await startTestTable();
  limiter = new DynamoRateLimiter(env.table, p);
  const endpoint = await (env.table.client.config.endpoint as () => Promise<{ hostname: string; port?: number }>)();
  oneAttempt = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://${endpoint.hostname}:${endpoint.port}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    }),
  );
});
afterAll(async () => {
  oneAttempt?.destroy();
  await env?.close();
});

describe('DynamoRateLimiter against dynalite', () => {
  it('admits exactly 60 of 200 simultaneous requests on one token', async () => {
    const key = newId('tok');
    const now = Date.now();
    // Simultaneous: however long dynalite takes, it is still `now` (a later time would refill the bucket).
    const frozen = new DynamoRateLimiter(env.table, p, () => now);
    const decisions = await Promise.all(Array.from({ length: 200 }, () => frozen.admit(key, now)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    for (const refused of decisions.filter((d) => !d.allowed)) expect(refused.retryAfterSeconds).toBe(1);
  });

  it('keeps tokens apart', async () => {
    const now = Date.now();
    // All at `now`, however long the loop takes on a loaded machine (a refusal is judged again at the clock's time).
    const frozen = new DynamoRateLimiter(env.table, p, () => now);
    const [a, b] = [newId('tok'), newId('tok')];
    for (let i = 0; i < 60; i++) await frozen.admit(a, now);
    expect((await frozen.admit(a, now)).allowed).toBe(false);
    expect((await frozen.admit(b, now)).allowed).toBe(true);
  });

  it('decides exactly like the GCRA model for any sequence of arrival times', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 90 }), async (gaps) => {
        const key = newId('tok');
        let t = 1_700_000_000_000;
        let tat: number | undefined;
        for (const gap of gaps) {
          t += gap % 7 === 0 ? 0 : gap;
          const model = gcraStep(tat, t, p);
          tat = model.tat;
          const real = await limiter.admit(key, t);
          expect(real.allowed).toBe(model.decision.allowed);
          if (real.allowed) expect(real.remaining).toBe(model.decision.remaining);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('decides like the model when several instances share a token (each with its own, possibly stale, hint)', async () => {
    const instances = [
      new DynamoRateLimiter(env.table, p),
      new DynamoRateLimiter(env.table, p),
      new DynamoRateLimiter(env.table, p),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 2 })), {
          minLength: 1,
          maxLength: 90,
        }),
        async (steps) => {
          const key = newId('tok');
          let t = 1_700_000_000_000;
          let tat: number | undefined;
          for (const [gap, instance] of steps) {
            t += gap % 5 === 0 ? 0 : gap;
            const model = gcraStep(tat, t, p);
            tat = model.tat;
            const real = await instances[instance]!.admit(key, t);
            expect(real.allowed).toBe(model.decision.allowed);
            if (real.allowed) expect(real.remaining).toBe(model.decision.remaining);
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it('requests that find an idle bucket together, each guessing busy, are all admitted while it has room', async () => {
    const store = new DynamoRateLimitStore(env.table);
    const key = newId('tok');
    let t = 1_700_000_000_000;
    // The instance last saw the bucket busy; by now it is idle (its TAT passed): every guess is wrong at once.
    expect((await store.admit(key, t, p)).allowed).toBe(true);
    for (let round = 0; round < 5; round++) {
      t += 120_000;
      const decisions = await Promise.all(Array.from({ length: 4 }, () => store.admit(key, t, p)));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true]);
    }
  });

  it('a request that waited behind later ones is judged again when its own time is stale, not refused for waiting', async () => {
    let clock = 1_700_000_000_000;
    const store = new DynamoRateLimitStore(env.table, Math.random, () => clock);
    const key = newId('tok');
    const second = perSecondParams(5);
    // Five requests judged at 2 s fill the bucket of five; one stamped at 0 s is only written now, at 2 s.
    for (let i = 0; i < 5; i++) expect((await store.admit(key, clock + 2_000, second)).allowed).toBe(true);
    clock += 2_000;
    // Judged at its stale time it would be refused (the bucket moved two seconds past it); judged now, the
    // bucket is full all the same: refused, with an honest wait.
    const stale = await store.admit(key, clock - 2_000, second);
    expect(stale.allowed).toBe(false);
    // A second later the bucket has room again: a request stamped a second ago passes once judged now.
    clock += 1_000;
    expect((await store.admit(key, clock - 1_000, second)).allowed).toBe(true);
  });

  it('a busy token pays one conditional write per admitted request', async () => {
    const own = new DynamoRateLimiter(env.table, p);
    let writes = 0;
    const counter = { step: 'initialize' as const, name: 'countWrites' };
    env.table.client.middlewareStack.add(
      (next) => async (args) => {
        writes++;
        return next(args);
      },
      counter,
    );
    try {
      const key = newId('tok');
      const now = Date.now();
      for (let i = 0; i < 30; i++) expect((await own.admit(key, now + i * 10)).allowed).toBe(true);
      expect(writes).toBe(30); // the first finds the bucket idle, the next 29 busy: one write each (was 1 + 29 × 2)
    } finally {
      env.table.client.middlewareStack.remove('countWrites');
    }
  });

  it('with concurrent bursts at random times never admits more than 60 × (N + 1) in N minutes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 150_000 }), fc.integer({ min: 1, max: 40 })), {
          minLength: 1,
          maxLength: 8,
        }),
        async (bursts) => {
          const key = newId('tok');
          const base = 1_700_000_000_000;
          const admitted: number[] = [];
          for (const [offset, size] of [...bursts].sort((a, b) => a[0] - b[0])) {
            const now = base + offset;
            const decisions = await Promise.all(Array.from({ length: size }, () => limiter.admit(key, now)));
            for (const d of decisions) if (d.allowed) admitted.push(now);
          }
          for (let i = 0; i < admitted.length; i++) {
            const count = admitted.filter((t) => t >= admitted[i]! && t < admitted[i]! + 60_000).length;
            expect(count).toBeLessThanOrEqual(120);
          }
          const firstMinute = admitted.filter((t) => t < base + 60_000).length;
          expect(firstMinute).toBeLessThanOrEqual(120);
        },
      ),
      { numRuns: 6 },
    );
  });
});

describe('a bucket over 250 requests a second, spread over items', () => {
  const fast = perSecondParams(500);

  it('takes two items for 500 a second, one up to 250', () => {
    expect(shardCount(perSecondParams(250))).toBe(1);
    expect(shardCount(fast)).toBe(2);
    expect(shardCount(perSecondParams(1_000))).toBe(4);
    expect(shardCount(gcraParams(60))).toBe(1);
  });

  it('admits no more than the whole bucket at once, and nearly all of it, over both items', async () => {
    const now = Date.now();
    const store = new DynamoRateLimitStore(env.table, Math.random, () => now);
    const key = newId('prj');
    const decisions = await Promise.all(Array.from({ length: 560 }, () => store.admit(key, now, fast)));
    const admitted = decisions.filter((d) => d.allowed).length;
    expect(admitted).toBeLessThanOrEqual(500);
    expect(admitted).toBeGreaterThanOrEqual(480);
    for (const d of decisions.filter((x) => !x.allowed)) expect(d.retryAfterSeconds).toBe(1);
    expect(decisions[0]!.limit).toBe(500);
  });

  it('across instances and arrival times never admits more than the bucket plus its refill since the first request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 1, max: 80 }), fc.nat(2)), {
          minLength: 1,
          maxLength: 6,
        }),
        async (bursts) => {
          const instances = [0, 1, 2].map(() => new DynamoRateLimitStore(env.table));
          const key = newId('prj');
          const base = 1_700_000_000_000;
          let admitted = 0;
          for (const [offset, size, instance] of [...bursts].sort((a, b) => a[0] - b[0])) {
            const now = base + offset;
            const decisions = await Promise.all(
              Array.from({ length: size }, () => instances[instance]!.admit(key, now, perSecondParams(300))),
            );
            admitted += decisions.filter((d) => d.allowed).length;
            // A bucket of 300, refilled at 300 a second, from the first request on.
            expect(admitted).toBeLessThanOrEqual(300 + Math.floor((offset * 300) / 1000));
          }
        },
      ),
      { numRuns: 5 },
    );
  });

  it('a caller hammering a full bucket costs its items no writes once this instance saw it full', async () => {
    const now = Date.now();
    // Its clock at the requests' times: on a loaded machine a real one would have refilled the bucket meanwhile.
    let clock = now;
    const store = new DynamoRateLimitStore(env.table, Math.random, () => clock);
    const key = newId('tok');
    const one = perSecondParams(5);
    for (let i = 0; i < 5; i++) expect((await store.admit(key, now, one)).allowed).toBe(true);
    let writes = 0;
    env.table.client.middlewareStack.add(
      (next) => async (args) => {
        writes++;
        return next(args);
      },
      { step: 'initialize', name: 'countFullWrites' },
    );
    try {
      for (let i = 0; i < 50; i++) {
        clock = now + i;
        expect((await store.admit(key, now + i, one)).allowed).toBe(false);
      }
      expect(writes).toBe(0);
    } finally {
      env.table.client.middlewareStack.remove('countFullWrites');
    }
  });

  it('a bucket that cannot be written refuses to decide: the caller answers 503, never admits', async () => {
    const throttles = throttleFile();
    process.env.THROTTLES_FILE = throttles.env.THROTTLES_FILE;
    try {
      throttles.arm('table:RL#*');
      const store = new DynamoRateLimitStore({ ...env.table, client: oneAttempt });
      await expect(store.admit(newId('tok'), Date.now(), gcraParams(60))).rejects.toBeInstanceOf(
        DependencyOverloadedError,
      );
    } finally {
      delete process.env.THROTTLES_FILE;
      throttles.remove();
    }
  });
});
