import { describe, expect, it } from 'vitest';
import { declareSettings, positiveInt } from '#shared/kernel/settings.ts';
import * as z from '#shared/kernel/validation/zod.ts';

const pets = declareSettings(
  {
    PET_LIMIT: z._default(positiveInt(100), 10),
    PET_KIND: z.optional(z.enum(['cat', 'dog'])),
  },
  (raw, { local }) => ({ ...raw, kind: raw.PET_KIND ?? (local ? 'cat' : 'dog') }),
);

describe('an area declares its settings', () => {
  it('parses them, with defaults and what the area derives (local and AWS defaults differ)', () => {
    expect(pets.parse({})).toEqual({ PET_LIMIT: 10, kind: 'dog' });
    expect(pets.parse({ SWITCHBOARD_RUNTIME: 'local', PET_LIMIT: '7' })).toEqual({ PET_LIMIT: 7, kind: 'cat' });
    expect(pets.names).toEqual(['PET_LIMIT', 'PET_KIND']);
  });

  it('refuses a bad value with one message naming each bad setting', () => {
    expect(() => pets.parse({ PET_LIMIT: '0' })).toThrow(/^Invalid configuration: PET_LIMIT: /);
    expect(() => pets.parse({ PET_LIMIT: 'many', PET_KIND: 'fish' })).toThrow(
      /^Invalid configuration: PET_LIMIT: .*; PET_KIND: /,
    );
  });

  it('reads process.env once, then keeps what it read (a cold start)', () => {
    const once = declareSettings({ ONCE_SETTING_FOR_TEST: z.optional(z.string()) });
    process.env.ONCE_SETTING_FOR_TEST = 'first';
    try {
      expect(once.read()).toEqual({ ONCE_SETTING_FOR_TEST: 'first' });
      process.env.ONCE_SETTING_FOR_TEST = 'second';
      expect(once.read()).toEqual({ ONCE_SETTING_FOR_TEST: 'first' });
    } finally {
      delete process.env.ONCE_SETTING_FOR_TEST;
    }
  });
});
