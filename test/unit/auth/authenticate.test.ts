import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeAuthenticateApiToken } from '#shared/auth/authenticate.ts';
import { bearerToken, hashToken, secretsEqual } from '#shared/kernel/tokens.ts';
import { generateToken, isWellFormedToken } from '#shared/auth/tokens.ts';
import { MemoryTokens } from '#test/support/fakes/memory-tokens.ts';

describe('tokens', () => {
  it('generates well-formed tokens of each kind, never equal, stored only by hash', () => {
    const a = generateToken('projectApi');
    const b = generateToken('projectApi');
    expect(a).toMatch(/^sbk_[A-Za-z0-9_-]{43}$/);
    expect(generateToken('custom')).toMatch(/^sbc_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(isWellFormedToken('projectApi', a)).toBe(true);
    expect(isWellFormedToken('custom', a)).toBe(false);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never accepts a malformed string as a token, whatever it is', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        if (isWellFormedToken('projectApi', s)) expect(s).toMatch(/^sbk_[A-Za-z0-9_-]{43}$/);
      }),
    );
  });

  it('reads only "Bearer <token>" from the Authorization header', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('compares secrets of any length in constant time', () => {
    expect(secretsEqual('a', 'a')).toBe(true);
    expect(secretsEqual('a', 'ab')).toBe(false);
    expect(secretsEqual('', 'x')).toBe(false);
  });
});

describe('Bots API authentication', () => {
  const tokens = new MemoryTokens();
  const authenticate = makeAuthenticateApiToken({ tokens });
  const token = generateToken('projectApi');
  tokens.grants.set(hashToken(token), { kind: 'projectApi', projectId: 'prj_1', companyId: 1, monthlyBotCredits: 0 });

  it('gives the contract code for each failure', async () => {
    expect(await authenticate(undefined)).toMatchObject({ ok: false, failure: 'ERR_API_TOKEN_NOT_PROVIDED' });
    expect(await authenticate('')).toMatchObject({ ok: false, failure: 'ERR_API_TOKEN_INVALID_FORMAT' });
    expect(await authenticate(`Token ${token}`)).toMatchObject({ ok: false, failure: 'ERR_API_TOKEN_INVALID_FORMAT' });
    expect(await authenticate(`Bearer ${token}x`)).toMatchObject({
      ok: false,
      failure: 'ERR_API_TOKEN_INVALID_FORMAT',
    });
    expect(await authenticate(`Bearer ${generateToken('custom')}`)).toMatchObject({
      ok: false,
      failure: 'ERR_API_TOKEN_INVALID_FORMAT',
    });
    expect(await authenticate(`Bearer ${generateToken('projectApi')}`)).toMatchObject({
      ok: false,
      failure: 'ERR_API_TOKEN_INVALID',
    });
    expect(await authenticate(`Bearer ${token}`)).toMatchObject({ ok: true, grant: { projectId: 'prj_1' } });
  });

  it('answers AUTHENTICATION_FAILED when the token store cannot be reached or the grant lost its project', async () => {
    tokens.fail = true;
    expect(await authenticate(`Bearer ${token}`)).toMatchObject({
      ok: false,
      failure: 'ERR_API_TOKEN_AUTHENTICATION_FAILED',
    });
    tokens.fail = false;
    const orphan = generateToken('projectApi');
    tokens.grants.set(hashToken(orphan), { kind: 'projectApi', projectId: '', companyId: 1, monthlyBotCredits: 0 });
    expect(await authenticate(`Bearer ${orphan}`)).toMatchObject({
      ok: false,
      failure: 'ERR_API_TOKEN_AUTHENTICATION_FAILED',
    });
  });
});
