import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createPublicKey, verify } from 'node:crypto';
import { generateSigningKey, publicKeyOf } from '#shared/integrations/index.ts';
import {
  signatureHeader,
  signPayload,
  signPayloadEd25519,
  standardWebhookHeaders,
} from '#shared/webhooks/signature.ts';

describe('Standard Webhooks signing', () => {
  it('reproduces the published test vector', () => {
    expect(
      signPayload(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with every live secret, space-separated, and either secret verifies', () => {
    const current = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const body = JSON.stringify({ id: 'evt_1', type: 'message.sent' });
    const now = Math.floor(Date.now() / 1000);
    const headers = standardWebhookHeaders([current, previous], 'evt_1', now, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    const stranger = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
  });

  it('agrees with the reference library for any body, id and secret', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes(' ')),
        fc.json(),
        (key, id, body) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          const at = new Date(1_700_000_000_000);
          expect(signatureHeader([secret], id, Math.floor(at.getTime() / 1000), body)).toBe(
            new Webhook(secret).sign(id, at, body),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('v1a (ed25519) signing', () => {
  const publicKeyObject = (whpk: string) =>
    createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(whpk.slice(5), 'base64').toString('base64url') },
      format: 'jwk',
    });

  it('signs "{id}.{timestamp}.{body}" so that the whpk_ public key verifies it, and nothing else does', () => {
    const key = generateSigningKey();
    expect(key).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    const publicKey = publicKeyOf(key);
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    const body = '{"id":"evt_1"}';
    const entry = signPayloadEd25519(key, 'evt_1', 1614265330, body);
    expect(entry).toMatch(/^v1a,/);
    const signature = Buffer.from(entry.slice(4), 'base64');
    expect(verify(null, Buffer.from(`evt_1.1614265330.${body}`), publicKeyObject(publicKey), signature)).toBe(true);
    expect(verify(null, Buffer.from(`evt_1.1614265331.${body}`), publicKeyObject(publicKey), signature)).toBe(false);
    expect(
      verify(
        null,
        Buffer.from(`evt_1.1614265330.${body}`),
        publicKeyObject(publicKeyOf(generateSigningKey())),
        signature,
      ),
    ).toBe(false);
  });

  it('puts every live secret and key in one header, v1 first, each verifiable', () => {
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const [current, previous] = [generateSigningKey(), generateSigningKey()];
    const body = JSON.stringify({ id: 'evt_1' });
    const now = Math.floor(Date.now() / 1000);
    const headers = standardWebhookHeaders({ secrets: [secret], keys: [current, previous] }, 'evt_1', now, body);
    const entries = headers['webhook-signature'].split(' ');
    expect(entries.map((e) => e.split(',')[0])).toEqual(['v1', 'v1a', 'v1a']);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    for (const [i, key] of [current, previous].entries()) {
      const signature = Buffer.from(entries[i + 1]!.slice(4), 'base64');
      expect(verify(null, Buffer.from(`evt_1.${now}.${body}`), publicKeyObject(publicKeyOf(key!)), signature)).toBe(
        true,
      );
    }
    expect(() => signatureHeader({ secrets: [], keys: [] }, 'evt_1', now, body)).toThrow();
  });
});
