import * as z from '../kernel/validation/zod.ts';
import { zodIssuesToDetails, type ErrorDetail } from '../kernel/validation/issues.ts';
import type { ChannelType } from './channel.ts';

/**
 * The send endpoint's payload, one strict schema per channel type (docs/reference/messaging.md). Each
 * problem is one issue with its own path, all at once; unknown fields are rejected (`channelType` with its own
 * message, see {@link SEND_UNKNOWN_FIELD_MESSAGES}).
 */

const required = (what: string) => ({
  error: (issue: { input: unknown }) =>
    issue.input === undefined ? `${what} is required` : `${what} must be a string`,
});

/** No CR or LF: the value goes into a mail header. */
const NO_LINE_BREAKS = /^[^\r\n]*$/;

const emailAddress = z.email({ error: 'Must be a valid email address' }).check(z.maxLength(320));

/** An absolute URL with one of `protocols` and a host (what a provider can fetch). */
const absoluteUrl = (protocols: string[], message: string) =>
  z.string({ error: message }).check(
    z.maxLength(2048, 'At most 2048 characters'),
    z.refine((value) => {
      if (!URL.canParse(value)) return false;
      const url = new URL(value);
      return (
        protocols.includes(url.protocol) &&
        value.toLowerCase().startsWith(`${url.protocol}//`) &&
        url.hostname !== '' &&
        !/\s/.test(value)
      );
    }, message),
  );
const httpUrl = absoluteUrl(['http:', 'https:'], 'Must be an absolute http(s) URL');
const httpsUrl = absoluteUrl(['https:'], 'Must be an absolute https URL');

/** A string or a list of strings, normalised to a list; each bad item is its own issue (`to.2`). */
function oneOrMany<T extends z.ZodMiniType<string>>(item: T, field: string, max: number) {
  return z.union(
    [
      z.pipe(
        item,
        z.transform((v: z.output<T>) => [v]),
      ),
      z.array(item).check(z.minLength(1, `${field} must not be empty`), z.maxLength(max, `At most ${max} entries`)),
    ],
    { error: `${field} must be a string or an array of strings` },
  );
}

/**
 * One-or-many fields reported the way a reader expects: a bad single string at `to`, a bad item at `to.1`.
 * (A zod union would report every branch's failure as one unreadable issue.)
 */
function addressList(field: string, max: number) {
  return z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      const list = Array.isArray(value) ? value : [value];
      const pathOf = (i: number) => (Array.isArray(value) ? [i] : []);
      if (Array.isArray(value) && value.length === 0) {
        ctx.issues.push({
          code: 'too_small',
          origin: 'array',
          minimum: 1,
          inclusive: true,
          input: value,
          message: `${field} must not be empty`,
        });
        return z.NEVER;
      }
      if (Array.isArray(value) && value.length > max) {
        ctx.issues.push({
          code: 'too_big',
          origin: 'array',
          maximum: max,
          inclusive: true,
          input: value,
          message: `At most ${max} addresses`,
        });
        return z.NEVER;
      }
      let ok = true;
      list.forEach((item, i) => {
        if (typeof item !== 'string') {
          ctx.issues.push({
            code: 'invalid_type',
            expected: 'string',
            input: item,
            path: pathOf(i),
            message: `${field} must be an email address or an array of them`,
          });
          ok = false;
        } else if (!emailAddress.safeParse(item).success) {
          ctx.issues.push({
            code: 'invalid_format',
            format: 'email',
            input: item,
            path: pathOf(i),
            message: 'Must be a valid email address',
          });
          ok = false;
        }
      });
      return ok ? (list as string[]) : z.NEVER;
    }),
  );
}

/** A required string field that is present only as a string (so `undefined` reads "is required"). */
const requiredAddressList = (field: string, max: number) =>
  z.pipe(
    z.unknown().check(
      z.superRefine((v, ctx) => {
        if (v === undefined)
          ctx.addIssue({ code: 'invalid_type', expected: 'string', input: v, message: `${field} is required` });
      }),
    ),
    addressList(field, max),
  );

/** No CR or LF, at most `max` characters, not empty. */
const headerText = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(NO_LINE_BREAKS, 'Must not contain CR or LF'));

/**
 * A WhatsApp message template approved by Meta: its name, its language code (`pt_BR`, `en_US`,
 * `en`), and the body's `{{1}}`, `{{2}}`… values in order. Whether they fit the template is Meta's to say (502).
 */
export const whatsappTemplate = z.strictObject({
  name: z
    .string(required('template.name'))
    .check(z.regex(/^[a-z0-9_]{1,512}$/, 'Lowercase letters, digits and _, as Meta names templates')),
  language: z
    .string(required('template.language'))
    .check(z.regex(/^[a-z]{2,3}(_[A-Za-z0-9]{2,4})?$/, 'A language code as Meta lists it: pt_BR, en_US, en')),
  variables: z.optional(
    z
      .array(z.string().check(z.minLength(1, 'Must not be empty'), z.maxLength(1024, 'At most 1024 characters')))
      .check(z.maxLength(100, 'At most 100 variables')),
  ),
});

export const whatsappPayload = z
  .strictObject({
    number: z.string(required('number')).check(z.regex(/^\d{8,15}$/, 'E.164 without "+": 8 to 15 digits, no spaces')),
    message: z.optional(
      z.string().check(z.minLength(1, 'message must not be empty'), z.maxLength(4096, 'At most 4096 characters')),
    ),
    template: z.optional(whatsappTemplate),
    name: z.optional(z.string().check(z.maxLength(200))),
    email: z.optional(emailAddress),
    url: z.optional(httpUrl),
    files: z.optional(z.array(httpUrl).check(z.maxLength(10, 'At most 10 files'))),
    sector: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  })
  .check(
    z.superRefine(
      (value, ctx) => {
        // Runs even when other fields failed, so that every problem is reported at once; the input may be anything.
        const input = value as unknown as Record<string, unknown> | null;
        if (!input || typeof input !== 'object') return;
        if (input.message === undefined && input.template === undefined)
          ctx.addIssue({ code: 'custom', path: ['message'], message: 'One of message or template is required' });
        if (input.message !== undefined && input.template !== undefined)
          ctx.addIssue({ code: 'custom', path: ['template'], message: 'Give message or template, not both' });
        if (input.template !== undefined && input.files !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['files'],
            message: 'files go with a message; a template is sent alone',
          });
      },
      { when: () => true },
    ),
  );

export const emailPayload = z
  .strictObject({
    to: requiredAddressList('to', 50),
    subject: z
      .string(required('subject'))
      .check(
        z.minLength(1, 'subject must not be empty'),
        z.maxLength(998, 'At most 998 characters'),
        z.regex(NO_LINE_BREAKS, 'Must not contain CR or LF'),
      ),
    body: z.optional(z.string().check(z.minLength(1))),
    html: z.optional(z.string().check(z.minLength(1))),
    text: z.optional(z.string().check(z.minLength(1))),
    bcc: z.optional(addressList('bcc', 50)),
    fromName: z.optional(headerText(200)),
    inReplyTo: z.optional(headerText(998)),
    references: z.optional(oneOrMany(headerText(998), 'references', 100)),
  })
  .check(
    z.superRefine(
      (value, ctx) => {
        // Runs even when other fields failed, so that every problem is reported at once; the input may be anything.
        const input = value as unknown as Record<string, unknown> | null;
        if (input && typeof input === 'object' && input.body === undefined && input.html === undefined) {
          ctx.addIssue({ code: 'custom', path: ['body'], message: 'One of body or html is required' });
        }
      },
      { when: () => true },
    ),
  );

const metadataValue = z.union([z.string().check(z.maxLength(500, 'At most 500 characters')), z.number(), z.boolean()], {
  error: 'Metadata values must be strings, numbers or booleans',
});

/**
 * Names every JavaScript object already has: as metadata keys they broke marshalling (a 500 after the provider had
 * sent and charged) and invite prototype pollution downstream, so they are refused up front.
 */
const RESERVED_METADATA_KEYS = new Set(['constructor', 'prototype', '__proto__']);
const METADATA_KEY_RULE = 'Metadata keys are 1 to 40 letters, digits, "_", "." or "-"';

const metadata = z.pipe(
  // zod's record silently drops an own `__proto__` key (JSON.parse makes one): refuse it before the record sees it.
  z.transform((value, ctx) => {
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
      ctx.issues.push({ code: 'custom', path: ['__proto__'], input: value, message: 'This metadata key is reserved' });
      return z.NEVER;
    }
    return value;
  }),
  z
    .record(
      z.string().check(
        z.regex(/^[A-Za-z0-9_.-]{1,40}$/, METADATA_KEY_RULE),
        z.refine((key) => !RESERVED_METADATA_KEYS.has(key), 'This metadata key is reserved'),
      ),
      metadataValue,
      {
        error: (issue) => (issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? METADATA_KEY_RULE) : undefined),
      },
    )
    .check(z.refine((m) => Object.keys(m).length <= 20, 'At most 20 keys')),
);

export const smsPayload = z.strictObject({
  to: z.string(required('to')).check(z.regex(/^\+\d{8,15}$/, 'E.164: "+" then 8 to 15 digits')),
  body: z.string(required('body')).check(
    z.minLength(1, 'body must not be empty'),
    z.refine((b) => [...b].length <= 1600, 'At most 1600 characters'),
  ),
  mediaUrls: z.optional(z.array(httpsUrl).check(z.maxLength(10, 'At most 10 media URLs'))),
  metadata: z.optional(metadata),
});

export type WhatsAppPayload = z.output<typeof whatsappPayload>;
export type EmailPayload = z.output<typeof emailPayload>;
export type SmsPayload = z.output<typeof smsPayload>;

export type SendPayload =
  | { type: 'whatsapp'; payload: WhatsAppPayload }
  | { type: 'email'; payload: EmailPayload }
  | { type: 'sms'; payload: SmsPayload };

export const PAYLOAD_SCHEMAS = { whatsapp: whatsappPayload, email: emailPayload, sms: smsPayload } satisfies Record<
  ChannelType,
  z.ZodMiniType
>;

/** Better words than "Unknown field" for unknown fields callers commonly send. */
export const SEND_UNKNOWN_FIELD_MESSAGES: Record<string, string> = Object.assign(
  Object.create(null) as Record<string, string>,
  {
    // Null prototype: a field named "toString" or "constructor" must not find Object.prototype's members here.
    channelType: 'channelType is derived from the token',
  },
);

export type PayloadValidation = { ok: true; value: SendPayload } | { ok: false; details: ErrorDetail[] };

/**
 * Validates a send payload for the channel type bound to the token. Never throws, whatever the input. Every
 * rejection carries at least one detail. A field of the wrong type is one problem: zod 4 would also report length
 * checks on it (a string where a list was expected is "too long"), so those echoes are dropped.
 */
export function validateSendPayload(type: ChannelType, body: unknown): PayloadValidation {
  const result = PAYLOAD_SCHEMAS[type].safeParse(body);
  if (result.success) return { ok: true, value: { type, payload: result.data } as SendPayload };
  const details = zodIssuesToDetails(result.error.issues, SEND_UNKNOWN_FIELD_MESSAGES);
  const mistyped = new Set(details.filter((d) => d.code === 'invalid_type').map((d) => d.path));
  const kept = details.filter((d) => d.code === 'invalid_type' || !mistyped.has(d.path));
  return { ok: false, details: kept.length ? kept : [{ path: '', message: 'The payload is invalid', code: 'custom' }] };
}
