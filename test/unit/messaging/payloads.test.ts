import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPES, type ChannelType } from '#shared/messaging/channel.ts';
import { validateSendPayload } from '#shared/messaging/payloads.ts';

const FIELDS: Record<ChannelType, string[]> = {
  whatsapp: ['number', 'message', 'name', 'email', 'url', 'files', 'sector'],
  email: ['to', 'subject', 'body', 'html', 'text', 'bcc', 'fromName', 'inReplyTo', 'references'],
  sms: ['to', 'body', 'mediaUrls', 'metadata'],
};

/** Values that stress the validators: wrong types, edge lengths, line breaks, odd URLs and addresses. */
const trickyValue = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.constantFrom(
    '',
    ' ',
    '\r\n',
    'a\nb',
    '+5511988887777',
    '5511988887777',
    'a@b.co',
    'not@',
    'https://x.example.com/a',
    'http:x',
    'ftp://x',
    '//x',
  ),
  fc.array(fc.oneof(fc.string(), fc.constantFrom('a@b.co', 'https://x.example.com/a.pdf'), fc.jsonValue()), {
    maxLength: 60,
  }),
  fc.dictionary(fc.string({ maxLength: 45 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.jsonValue()), {
    maxKeys: 25,
  }),
  fc.string({ minLength: 1590, maxLength: 1610 }),
);

/** Objects made of the channel's own fields (and sometimes strangers), so the interesting paths are exercised. */
const nearPayload = (type: ChannelType) =>
  fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS[type], 'channelType'), fc.string()), trickyValue, { maxKeys: 12 });

function checkRejection(result: ReturnType<typeof validateSendPayload>) {
  if (result.ok) return;
  expect(result.details.length).toBeGreaterThan(0);
  for (const detail of result.details) {
    expect(typeof detail.path).toBe('string');
    expect(typeof detail.message).toBe('string');
    expect(detail.message.length).toBeGreaterThan(0);
    expect(typeof detail.code).toBe('string');
  }
}

/**
 * The property tests' budget, sized for a slow machine: a fresh clone's first run under the whole suite's load took
 * 35.9 s for what takes 3 s idle here (12x). The run counts keep the file near 3 s of CPU; the timeout covers 20x that.
 */
const PROPERTY_TIMEOUT_MS = 120_000;

describe('send payload validators (property)', { timeout: PROPERTY_TIMEOUT_MS }, () => {
  it('never throw on any JSON value, and every rejection has details', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHANNEL_TYPES), fc.jsonValue(), (type, value) => {
        const result = validateSendPayload(type, value);
        checkRejection(result);
      }),
      { numRuns: 1500 },
    );
  });

  it('never throw on objects built from the channel fields, and report each problem once', () => {
    for (const type of CHANNEL_TYPES) {
      fc.assert(
        fc.property(nearPayload(type), (value) => {
          const result = validateSendPayload(type, value);
          checkRejection(result);
          if (!result.ok) {
            // One problem, one entry: no two details say the same thing about the same path.
            const keys = result.details.map((d) => `${d.path}|${d.code}|${d.message}`);
            expect(new Set(keys).size).toBe(keys.length);
            // A key the schema does not know is always reported, by name.
            for (const key of Object.keys(value)) {
              if (!FIELDS[type].includes(key))
                expect(result.details.some((d) => d.path === key && d.code === 'unrecognized_keys')).toBe(true);
            }
          }
          if ('channelType' in value) {
            expect(result.ok).toBe(false);
            if (!result.ok)
              expect(result.details).toContainEqual({
                path: 'channelType',
                message: 'channelType is derived from the token',
                code: 'unrecognized_keys',
              });
          }
        }),
        { numRuns: 750 },
      );
    }
  });

  const digits = (min: number, max: number) =>
    fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
  const email = fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.stringMatching(/^[a-z]{1,10}$/))
    .map(([u, d]) => `${u}@${d}.com`);
  const headerText = (max: number) => fc.string({ minLength: 1, maxLength: max }).filter((s) => !/[\r\n]/.test(s));
  const url = (scheme: string) =>
    fc.stringMatching(/^[a-z0-9]{1,10}$/).map((p) => `${scheme}://files.example.com/${p}`);

  it('accept every payload the rules allow', () => {
    const validSms = fc.record(
      {
        to: digits(8, 15).map((d) => `+${d}`),
        body: fc.string({ minLength: 1, maxLength: 1600 }),
        mediaUrls: fc.array(url('https'), { maxLength: 10 }),
        metadata: fc.dictionary(
          fc
            .string({ unit: fc.constantFrom(...'abcXYZ019_.-'), minLength: 1, maxLength: 40 })
            .filter((key) => !['constructor', 'prototype', '__proto__'].includes(key)),
          fc.oneof(fc.string({ maxLength: 500 }), fc.integer(), fc.boolean()),
          { maxKeys: 20 },
        ),
      },
      { requiredKeys: ['to', 'body'] },
    );
    const validWhatsapp = fc.record(
      {
        number: digits(8, 15),
        message: fc.string({ minLength: 1, maxLength: 4096 }),
        name: fc.string({ maxLength: 200 }),
        email,
        url: url('https'),
        files: fc.array(fc.oneof(url('https'), url('http')), { maxLength: 10 }),
        sector: fc.string({ minLength: 1, maxLength: 100 }),
      },
      { requiredKeys: ['number', 'message'] },
    );
    const addresses = fc.oneof(email, fc.array(email, { minLength: 1, maxLength: 50 }));
    const validEmail = fc
      .record(
        {
          to: addresses,
          subject: headerText(998),
          body: fc.string({ minLength: 1 }),
          html: fc.string({ minLength: 1 }),
          text: fc.string({ minLength: 1 }),
          bcc: addresses,
          fromName: headerText(200),
          inReplyTo: headerText(998),
          references: fc.oneof(headerText(998), fc.array(headerText(998), { minLength: 1, maxLength: 100 })),
        },
        { requiredKeys: ['to', 'subject'] },
      )
      .filter((p) => p.body !== undefined || p.html !== undefined);
    for (const [type, arb] of [
      ['sms', validSms],
      ['whatsapp', validWhatsapp],
      ['email', validEmail],
    ] as const) {
      fc.assert(
        fc.property(arb, (payload) => {
          const result = validateSendPayload(type, payload);
          expect(result.ok ? [] : result.details).toEqual([]);
        }),
        { numRuns: 400 },
      );
    }
  });

  it('refuse a CR or LF anywhere in a mail header field', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('subject', 'fromName', 'inReplyTo', 'references'),
        fc.string({ maxLength: 20 }),
        fc.constantFrom('\r', '\n', '\r\n'),
        fc.string({ maxLength: 20 }),
        (field, before, newline, after) => {
          const result = validateSendPayload('email', {
            to: 'a@example.com',
            subject: 'Hi',
            body: 'x',
            [field]: `${before}${newline}${after}`,
          });
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.details.some((d) => d.path === field)).toBe(true);
        },
      ),
    );
  });

  it('refuse metadata keys outside the key rule, and the names every object has, with a 400 detail', () => {
    const send = (metadataJson: string) =>
      validateSendPayload('sms', JSON.parse(`{"to":"+5511988887777","body":"x","metadata":${metadataJson}}`));
    for (const key of ['constructor', 'prototype', '__proto__']) {
      expect(send(`{"${key}":"x"}`)).toEqual({
        ok: false,
        details: [{ path: `metadata.${key}`, message: 'This metadata key is reserved', code: expect.any(String) }],
      });
    }
    for (const key of ['a b', 'é', 'x'.repeat(41), 'semi;colon', '$where']) {
      const result = send(JSON.stringify({ [key]: 'x' }));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.details[0]).toMatchObject({ path: `metadata.${key}`, message: /1 to 40 letters/ });
    }
    expect(send('{"order.id":"A-1","x_y-z":2,"Paid":true}').ok).toBe(true);
  });
});
