import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '#shared/kernel/secret-box.ts';

const box = createSecretBox(randomBytes(32).toString('base64'));

describe('secret box (AES-256-GCM)', () => {
  it('opens what it sealed, in the same context only', () => {
    const sealed = box.seal('whsec_abc', 'integration:int_1:signingSecret');
    expect(box.open(sealed, 'integration:int_1:signingSecret')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'integration:int_2:signingSecret')).toThrow();
  });

  it('refuses a sealed value whose tag was cut short, however short', () => {
    const sealed = box.seal('twilio-auth-token', 'channel:ch_1:provider');
    const [version, iv, ciphertext, tag] = sealed.split('.') as [string, string, string, string];
    const fullTag = Buffer.from(tag, 'base64url');
    expect(fullTag.length).toBe(16);
    for (const length of [4, 8, 12, 15]) {
      const truncated = [version, iv, ciphertext, fullTag.subarray(0, length).toString('base64url')].join('.');
      expect(() => box.open(truncated, 'channel:ch_1:provider')).toThrow();
    }
  });
});

describe('secret box keyed digests', () => {
  it('are the same for the same value and context, and differ across contexts, values and deployment keys', () => {
    const a = box.mac('ana@example.org', 'list-unsubscribe\nch_1');
    expect(a).toHaveLength(32);
    expect(box.mac('ana@example.org', 'list-unsubscribe\nch_1').equals(a)).toBe(true);
    expect(box.mac('ana@example.org', 'list-unsubscribe\nch_2').equals(a)).toBe(false);
    expect(box.mac('bia@example.org', 'list-unsubscribe\nch_1').equals(a)).toBe(false);
    const other = createSecretBox(randomBytes(32).toString('base64'));
    expect(other.mac('ana@example.org', 'list-unsubscribe\nch_1').equals(a)).toBe(false);
  });
});
