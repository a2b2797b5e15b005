import { describe, expect, it } from 'vitest';
import { customTokenFunction, generateToken } from '#shared/auth/index.ts';
import { hashToken } from '#shared/kernel/tokens.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { DependencyOverloadedError } from '#shared/kernel/overload.ts';
import {
  type GcraParams,
  gcraStep,
  type RateDecision,
  type RateLimiter,
  type RateLimitStore,
} from '#shared/ratelimit/gcra.ts';
import { RateLimitedError } from '#shared/ratelimit/errors.ts';
import { makeTenantLimiter, type TenantLimits } from '#shared/ratelimit/tenant-limits.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';
import { MemoryTokens } from '#test/support/fakes/memory-tokens.ts';

/** The pure GCRA per key, as the DynamoDB store decides (its adapter is checked against the same model). */
class MemoryStore implements RateLimitStore {
  readonly tats = new Map<string, number | undefined>();
  readonly asked: { key: string; params: GcraParams }[] = [];
  async admit(key: string, now: number, params: GcraParams): Promise<RateDecision> {
    this.asked.push({ key, params });
    const step = gcraStep(this.tats.get(key), now, params);
    this.tats.set(key, step.tat);
    return step.decision;
  }
}

const limitsOf = (limits: Record<string, TenantLimits | undefined>) => ({
  limitsOf: async (projectId: string) => limits[projectId],
});
const defaults = { sendsPerSecond: 100, eventsPerSecond: 1_000 };

describe('a project’s limits', () => {
  it("uses the project's own limit, else the deployment's default (null or absent alike)", async () => {
    const store = new MemoryStore();
    const limiter = makeTenantLimiter({
      store,
      limits: limitsOf({ a: { sendsPerSecond: 3 }, b: { sendsPerSecond: null, eventsPerSecond: 7 } }),
      defaults,
    });
    await limiter.admit('a', 'sends', 0);
    await limiter.admit('b', 'sends', 0);
    await limiter.admit('b', 'events', 0);
    await limiter.admit('c', 'events', 0);
    expect(store.asked).toEqual([
      { key: 'sends#a', params: { limit: 3, windowMs: 1000 } },
      { key: 'sends#b', params: { limit: 100, windowMs: 1000 } },
      { key: 'events#b', params: { limit: 7, windowMs: 1000 } },
      { key: 'events#c', params: { limit: 1000, windowMs: 1000 } },
    ]);
  });

  it('over the limit: RATE_LIMITED with the seconds to wait; sends and events are separate buckets', async () => {
    const limiter = makeTenantLimiter({
      store: new MemoryStore(),
      limits: limitsOf({ a: { sendsPerSecond: 2, eventsPerSecond: 1 } }),
      defaults,
    });
    await limiter.admit('a', 'sends', 1_000);
    await limiter.admit('a', 'sends', 1_000);
    const refused = await limiter.admit('a', 'sends', 1_000).catch((e) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.retryAfterSeconds).toBe(1);
    expect(refused.message).toContain('2 sends a second');
    expect((await limiter.admit('a', 'events', 1_000)).allowed).toBe(true);
    // Half a second later one more send fits (two a second, refilled continuously).
    expect((await limiter.admit('a', 'sends', 1_500)).allowed).toBe(true);
  });

  it('limits that cannot be read, or a bucket that cannot be written, refuse: never admitted unchecked', async () => {
    const unreadable = makeTenantLimiter({
      store: new MemoryStore(),
      limits: { limitsOf: async () => Promise.reject(new Error('throttled')) },
      defaults,
    });
    await expect(unreadable.admit('a', 'sends')).rejects.toBeInstanceOf(DependencyOverloadedError);
    const unwritable = makeTenantLimiter({
      store: { admit: async () => Promise.reject(new DependencyOverloadedError('busy')) },
      limits: limitsOf({}),
      defaults,
    });
    await expect(unwritable.admit('a', 'events')).rejects.toBeInstanceOf(DependencyOverloadedError);
  });
});

describe("a custom token's limits on its routes", () => {
  const logger = createLogger('test');
  const tokens = new MemoryTokens();
  const token = generateToken('custom');
  void tokens.put(hashToken(token), { kind: 'custom', projectId: 'prj_a', integrationId: 'int_1', channelId: 'ch' });
  const call = async (limits: Parameters<typeof customTokenFunction>[0]['limits']) => {
    let ran = false;
    const handler = customTokenFunction({ logger, tokens, limits }).handler(async () => {
      ran = true;
      return json(200, { ok: true });
    });
    const res = await handler(
      apiEvent({ headers: { authorization: `Bearer ${token}` } }) as HttpEvent<unknown, never>,
      lambdaContext,
    );
    return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body), ran };
  };
  const tokenBucket = (decision: Partial<RateDecision>): RateLimiter => ({
    admit: async () => ({ allowed: true, limit: 100, remaining: 99, resetSeconds: 1, ...decision }),
  });

  it("over the token's own limit: 429 RATE_LIMITED with Retry-After, the handler never runs", async () => {
    const res = await call({ token: tokenBucket({ allowed: false, retryAfterSeconds: 2 }), tokenPerSecond: 100 });
    expect(res.status).toBe(429);
    expect(res.headers['Retry-After']).toBe('2');
    expect(res.body).toMatchObject({ success: false, error: 'RATE_LIMITED' });
    expect(res.ran).toBe(false);
  });

  it("over the project's sends: 429 RATE_LIMITED with Retry-After, the handler never runs", async () => {
    const sends = makeTenantLimiter({
      store: new MemoryStore(),
      limits: limitsOf({ prj_a: { sendsPerSecond: 1 } }),
      defaults,
    });
    expect((await call({ token: tokenBucket({}), tokenPerSecond: 100, sends })).status).toBe(200);
    const res = await call({ token: tokenBucket({}), tokenPerSecond: 100, sends });
    expect(res.status).toBe(429);
    expect(Number(res.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(res.ran).toBe(false);
  });

  it("a send writes the token's bucket only when the project's limit is above the token's", async () => {
    let asked = 0;
    const counting: RateLimiter = {
      admit: async () => {
        asked++;
        return { allowed: true, limit: 100, remaining: 99, resetSeconds: 1 };
      },
    };
    const projects = limitsOf({ prj_a: { sendsPerSecond: 100 } });
    const sends = makeTenantLimiter({ store: new MemoryStore(), limits: projects, defaults });
    expect((await call({ token: counting, tokenPerSecond: 100, sends })).status).toBe(200);
    expect(asked).toBe(0);
    const above = makeTenantLimiter({
      store: new MemoryStore(),
      limits: limitsOf({ prj_a: { sendsPerSecond: 400 } }),
      defaults,
    });
    expect((await call({ token: counting, tokenPerSecond: 100, sends: above })).status).toBe(200);
    expect(asked).toBe(1);
    // Without a project bucket (the message reads), the token's is always asked.
    expect((await call({ token: counting, tokenPerSecond: 100 })).status).toBe(200);
    expect(asked).toBe(2);
  });

  it('a bucket that cannot be checked refuses with 503 and Retry-After, the handler never runs', async () => {
    const broken: RateLimiter = { admit: async () => Promise.reject(new Error('ProvisionedThroughputExceeded')) };
    const res = await call({ token: broken, tokenPerSecond: 100 });
    expect(res.status).toBe(503);
    expect(res.headers['Retry-After']).toBe('1');
    expect(res.body.error).toBe('SERVICE_UNAVAILABLE');
    expect(res.ran).toBe(false);
    const brokenSends = makeTenantLimiter({
      store: { admit: async () => Promise.reject(new Error('unreachable')) },
      limits: limitsOf({}),
      defaults,
    });
    const viaProject = await call({ token: tokenBucket({}), tokenPerSecond: 100, sends: brokenSends });
    expect(viaProject.status).toBe(503);
    expect(viaProject.ran).toBe(false);
  });
});
