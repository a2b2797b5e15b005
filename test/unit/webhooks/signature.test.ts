import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeader, signPayload, standardWebhookHeaders } from '#shared/webhooks/signature.ts';

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
