import { describe, expect, it } from 'vitest';
import { botsApiFunction, generateToken } from '#shared/auth/index.ts';
import type { Bot } from '#shared/bots/index.ts';
import { validatedBody } from '#shared/http/presets.ts';
import { hashToken } from '#shared/kernel/tokens.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { searchRoute } from '#shared/knowledge/api/search-route.ts';
import { searchRequest } from '#shared/knowledge/index.ts';
import type { RateDecision, RateLimiter } from '#shared/ratelimit/index.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';
import { MemoryTokens } from '#test/support/fakes/memory-tokens.ts';

/**
 * Search reads its bot while the rate limit is counted, not after: both wait on DynamoDB, and the bot's read needs
 * only the body's bot id. Every refusal answers as it did: a token not known is 401 (nothing counted, nothing read),
 * a request over the limit 429 whatever the read gave, an unknown bot 404, another project's 403.
 */
const logger = createLogger('test');
const tokens = new MemoryTokens();
const token = generateToken('projectApi');
tokens.grants.set(hashToken(token), { kind: 'projectApi', projectId: 'prj_a', companyId: 7, monthlyBotCredits: 0 });

const botOf = (botId: string, projectId: string): Bot => ({
  botId,
  projectId,
  name: 'b',
  instructions: 'x',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  knowledge: { version: 1, segments: [] },
});

/** The search function's chain over a limiter and a bot store the test holds; what happened, in order. */
function searchFunction(options: {
  admit: () => Promise<RateDecision>;
  get: (botId: string) => Promise<Bot | undefined>;
}) {
  const log: string[] = [];
  const limiter: RateLimiter = {
    admit: async () => {
      log.push('admit');
      const decision = await options.admit();
      log.push('admitted');
      return decision;
    },
  };
  const bots = {
    get: (botId: string) => {
      log.push(`get ${botId}`);
      return options.get(botId);
    },
  };
  const route = searchRoute({
    bots,
    knowledge: { search: async (r) => [{ text: `about ${r.query}`, fileName: 'a.txt', score: 1 }] },
  });
  const handler = botsApiFunction({
    logger,
    auth: { tokens, limiter },
    body: validatedBody(searchRequest),
    beside: route.beside,
  }).handler(route.handler);
  const call = async (body: unknown, bearer = token) => {
    const res = await handler(
      // As API Gateway sends it, before any middleware.
      apiEvent({ body: JSON.stringify(body), headers: { authorization: `Bearer ${bearer}` } }) as Parameters<
        typeof handler
      >[0],
      lambdaContext,
    );
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  return { call, log };
}

const allowed: RateDecision = { allowed: true, limit: 60, remaining: 59, resetSeconds: 1 };
const refused: RateDecision = { allowed: false, limit: 60, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 };

describe('search: the bot read beside the rate limit', () => {
  it('starts the bot read before the rate limit has answered, and reads it once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fn = searchFunction({ admit: () => gate.then(() => allowed), get: async (id) => botOf(id, 'prj_a') });
    const answer = fn.call({ botId: 'bot_1', query: 'hours' });
    for (let i = 0; i < 20 && !fn.log.includes('get bot_1'); i++) await new Promise((r) => setImmediate(r));
    expect(fn.log).toEqual(['get bot_1', 'admit']); // the limit has not answered yet
    release();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.trechos).toEqual([{ texto: 'about hours', procedencia: 'a.txt', score: 1 }]);
    expect(fn.log.filter((e) => e.startsWith('get'))).toEqual(['get bot_1']);
  });

  it('a request over the limit is 429, whether the read found the bot or failed', async () => {
    for (const get of [async (id: string) => botOf(id, 'prj_a'), async () => Promise.reject(new Error('throttled'))]) {
      const fn = searchFunction({ admit: async () => refused, get });
      const res = await fn.call({ botId: 'bot_1', query: 'hours' });
      expect(res.status).toBe(429);
      expect(res.body.error).toBe('ERR_PUBLIC_AI_RATE_LIMIT');
    }
  });

  it('a token not known is 401: not counted, no bot read', async () => {
    const fn = searchFunction({ admit: async () => allowed, get: async (id) => botOf(id, 'prj_a') });
    const res = await fn.call({ botId: 'bot_1', query: 'hours' }, generateToken('projectApi'));
    expect(res.status).toBe(401);
    expect(fn.log).toEqual([]);
  });

  it('an unknown bot is 404, another project’s 403, a failed read the error it was', async () => {
    const none = searchFunction({ admit: async () => allowed, get: async () => undefined });
    expect((await none.call({ botId: 'bot_1', query: 'hours' })).body.error).toBe('BOT_NOT_FOUND');
    const other = searchFunction({ admit: async () => allowed, get: async (id) => botOf(id, 'prj_b') });
    const forbidden = await other.call({ botId: 'bot_1', query: 'hours' });
    expect([forbidden.status, forbidden.body.error]).toEqual([403, 'BOT_FORBIDDEN']);
    const failing = searchFunction({ admit: async () => allowed, get: async () => Promise.reject(new Error('down')) });
    expect((await failing.call({ botId: 'bot_1', query: 'hours' })).status).toBe(500);
  });

  it('a body that fails validation is 400; a bot id the body does not hold is never taken from the read', async () => {
    const fn = searchFunction({ admit: async () => allowed, get: async (id) => botOf(id, 'prj_a') });
    expect((await fn.call({ botId: 'bot_1', query: '   ' })).status).toBe(400);
    expect((await fn.call({ botId: '', query: 'hours' })).status).toBe(400);
    expect(fn.log.filter((e) => e.startsWith('get'))).toEqual(['get bot_1']);
  });
});
