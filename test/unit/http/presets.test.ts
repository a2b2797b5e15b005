import { describe, expect, it } from 'vitest';
import { hashToken } from '#shared/kernel/tokens.ts';
import { botsApiFunction, customTokenFunction, generateToken } from '#shared/auth/index.ts';
import {
  jsonObjectBody,
  providerFunction,
  rawBytesBody,
  validatedBody,
  type HttpHandler,
  type ScopedIdempotency,
} from '#shared/http/presets.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import {
  type ClaimResult,
  type IdempotencyClaim,
  type IdempotencyStore,
  idempotency,
  type StoredResponse,
} from '#shared/idempotency/index.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import type { RateLimiter } from '#shared/ratelimit/index.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';
import { MemoryTokens } from '#test/support/fakes/memory-tokens.ts';

const logger = createLogger('test');

/** Keys by scope and key; no locks or expiry (one test process, one request at a time). */
class MemoryIdempotency implements IdempotencyStore {
  private readonly records = new Map<string, { fingerprint: string; response?: StoredResponse }>();
  async claim(claim: IdempotencyClaim): Promise<ClaimResult> {
    const record = this.records.get(`${claim.scope}\n${claim.key}`);
    if (!record) {
      this.records.set(`${claim.scope}\n${claim.key}`, { fingerprint: claim.fingerprint });
      return { kind: 'claimed', firstClaimedAt: claim.now };
    }
    if (record.fingerprint !== claim.fingerprint) return { kind: 'mismatch' };
    return record.response ? { kind: 'replay', response: record.response } : { kind: 'in-progress' };
  }
  async complete(claim: IdempotencyClaim, response: StoredResponse) {
    this.records.set(`${claim.scope}\n${claim.key}`, { fingerprint: claim.fingerprint, response });
  }
  async release(claim: IdempotencyClaim) {
    this.records.delete(`${claim.scope}\n${claim.key}`);
  }
}

const unlimited: RateLimiter = {
  admit: async () => ({ allowed: true, limit: 60, remaining: 59, resetSeconds: 1 }),
};

function scoped(store: IdempotencyStore): ScopedIdempotency {
  return (scope) => idempotency({ store, logger, lockSeconds: 30, scope });
}

/** Calls a preset's handler as API Gateway would: the event is what the gateway sends, before any middleware. */
async function call<E>(handler: HttpHandler<E>, token: string | undefined, body: string, key?: string) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (key) headers['idempotency-key'] = key;
  const res = await handler(apiEvent({ body, headers }) as E, lambdaContext);
  return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body) };
}

describe('botsApiFunction', () => {
  const tokens = new MemoryTokens();
  const tokenOf = (projectId: string) => {
    const token = generateToken('projectApi');
    tokens.grants.set(hashToken(token), { kind: 'projectApi', projectId, companyId: 7, monthlyBotCredits: 10 });
    return token;
  };
  let runs = 0;
  const handler = botsApiFunction({
    logger,
    auth: { tokens, limiter: unlimited },
    idempotency: scoped(new MemoryIdempotency()),
    body: validatedBody(z.strictObject({ prompt: z.string() })),
  }).handler(async (event) =>
    json(200, { projectId: event.auth.grant.projectId, prompt: event.parsedBody.prompt, run: ++runs }),
  );

  it('hands the handler the authenticated caller and the validated body; 401 and 400 before it runs', async () => {
    const before = runs;
    expect((await call(handler, undefined, '{"prompt":"x"}')).body.error).toBe('ERR_API_TOKEN_NOT_PROVIDED');
    const invalid = await call(handler, tokenOf('prj_a'), '{"prompt":1}');
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('VALIDATION_ERROR');
    expect(runs).toBe(before);
    const ok = await call(handler, tokenOf('prj_a'), '{"prompt":"hello"}');
    expect(ok.body).toMatchObject({ projectId: 'prj_a', prompt: 'hello' });
    expect(ok.headers['RateLimit-Limit']).toBe('60');
  });

  it('scopes Idempotency-Key to the caller project: another project with the same key is another request', async () => {
    const a = tokenOf('prj_a');
    const first = await call(handler, a, '{"prompt":"p"}', 'same-key');
    const replay = await call(handler, tokenOf('prj_a'), '{"prompt":"p"}', 'same-key');
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    const otherProject = await call(handler, tokenOf('prj_b'), '{"prompt":"p"}', 'same-key');
    expect(otherProject.body.projectId).toBe('prj_b');
    expect(otherProject.body.run).toBe(first.body.run + 1);
  });
});

describe('customTokenFunction', () => {
  const tokens = new MemoryTokens();
  const tokenOf = (integrationId: string) => {
    const token = generateToken('custom');
    tokens.grants.set(hashToken(token), { kind: 'custom', projectId: 'prj_a', integrationId, channelId: 'ch_1' });
    return token;
  };
  let runs = 0;
  const handler = customTokenFunction({
    logger,
    tokens,
    limits: { token: unlimited, tokenPerSecond: 100 },
    idempotency: scoped(new MemoryIdempotency()),
    body: jsonObjectBody(),
  }).handler(async (event) =>
    json(200, { integrationId: event.auth.integrationId, to: event.parsedBody.to, run: ++runs }),
  );

  it('answers 401 ERR_NO_PERMISSION for any token that is not a custom one, a project API token included', async () => {
    const projectToken = generateToken('projectApi');
    await tokens.put(hashToken(projectToken), {
      kind: 'projectApi',
      projectId: 'p',
      companyId: 1,
      monthlyBotCredits: 0,
    });
    for (const token of [undefined, 'sbc_nope', projectToken]) {
      const res = await call(handler, token, '{"to":"x"}');
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('ERR_NO_PERMISSION');
    }
    expect(runs).toBe(0);
  });

  it('hands the handler the grant and the JSON object; keys are scoped to the integration', async () => {
    expect((await call(handler, tokenOf('int_1'), '[1]')).body.error).toBe('VALIDATION_ERROR');
    const first = await call(handler, tokenOf('int_1'), '{"to":"+5511"}', 'k');
    expect(first.body).toEqual({ integrationId: 'int_1', to: '+5511', run: 1 });
    expect((await call(handler, tokenOf('int_1'), '{"to":"+5511"}', 'k')).body.run).toBe(1);
    expect((await call(handler, tokenOf('int_2'), '{"to":"+5511"}', 'k')).body.run).toBe(2);
  });
});

describe('providerFunction', () => {
  const handler = providerFunction({ logger, body: rawBytesBody(8) }).handler(async (event) => ({
    statusCode: 200,
    headers: { 'content-type': 'text/plain' },
    body: event.parsedBody.toString('hex'),
  }));
  const send = async (body: string, base64 = false) => {
    const res = await handler(apiEvent({ body, base64 }) as HttpEvent<Buffer>, lambdaContext);
    return { status: res.statusCode, body: res.body };
  };

  it('hands the handler the body bytes exactly as sent (what a provider signs), text or base64', async () => {
    expect(await send('a=1&b=2')).toEqual({ status: 200, body: Buffer.from('a=1&b=2').toString('hex') });
    const bytes = Buffer.from([0xff, 0x00, 0xc3, 0x28]);
    expect(await send(bytes.toString('base64'), true)).toEqual({ status: 200, body: bytes.toString('hex') });
  });

  it('answers 413 PAYLOAD_TOO_LARGE over the limit, before the handler runs', async () => {
    const res = await send('123456789');
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error).toBe('PAYLOAD_TOO_LARGE');
    expect((await send(Buffer.alloc(9).toString('base64'), true)).status).toBe(413);
    expect((await send(Buffer.alloc(8).toString('base64'), true)).status).toBe(200);
  });
});
