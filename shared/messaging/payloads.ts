import { z } from 'zod';
import { zodIssuesToDetails } from '../http/middleware.ts';
import type { ErrorDetail } from '../http/errors.ts';
import type { ChannelType } from './channel.ts';

/**
 * The send endpoint's payload, one strict schema per channel type (spec section 2, contract section 2). Each
 * problem is one issue with its own path, all at once; unknown fields are rejected (`channelType` with its own
 * message, see {@link SEND_UNKNOWN_FIELD_MESSAGES}).
 */

const required = (what: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined ? `${what} is required` : `${what} must be a string`),
});

/** No CR or LF: the value goes into a mail header. */
const NO_LINE_BREAKS = /^[^\r\n]*$/;

const emailAddress = z.email({ error: 'Must be a valid email address' }).max(320);

/** An absolute URL with one of `protocols` and a host (what a provider can fetch). */
const absoluteUrl = (protocols: string[], message: string) =>
  z
    .string({ error: message })
    .max(2048, 'At most 2048 characters')
    .refine((value) => {
      if (!URL.canParse(value)) return false;
      const url = new URL(value);
      return protocols.includes(url.protocol) && value.toLowerCase().startsWith(`${url.protocol}//`) && url.hostname !== '' && !/\s/.test(value);
    }, message);
const httpUrl = absoluteUrl(['http:', 'https:'], 'Must be an absolute http(s) URL');
const httpsUrl = absoluteUrl(['https:'], 'Must be an absolute https URL');

/** A string or a list of strings, normalised to a list; each bad item is its own issue (`to.2`). */
function oneOrMany<T extends z.ZodType<string>>(item: T, field: string, max: number) {
  return z.union([item.transform((v) => [v]), z.array(item).min(1, `${field} must not be empty`).max(max, `At most ${max} entries`)], {
    error: `${field} must be a string or an array of strings`,
  });
}

/**
 * One-or-many fields reported the way a reader expects: a bad single string at `to`, a bad item at `to.1`.
 * (A zod union would report every branch's failure as one unreadable issue.)
 */
function addressList(field: string, max: number) {
  return z.unknown().transform((value, ctx) => {
    const list = Array.isArray(value) ? value : [value];
    const pathOf = (i: number) => (Array.isArray(value) ? [i] : []);
    if (Array.isArray(value) && value.length === 0) {
      ctx.addIssue({ code: 'too_small', origin: 'array', minimum: 1, inclusive: true, input: value, message: `${field} must not be empty` });
      return z.NEVER;
    }
    if (Array.isArray(value) && value.length > max) {
      ctx.addIssue({ code: 'too_big', origin: 'array', maximum: max, inclusive: true, input: value, message: `At most ${max} addresses` });
      return z.NEVER;
    }
    let ok = true;
    list.forEach((item, i) => {
      if (typeof item !== 'string') {
        ctx.addIssue({ code: 'invalid_type', expected: 'string', input: item, path: pathOf(i), message: `${field} must be an email address or an array of them` });
        ok = false;
      } else if (!emailAddress.safeParse(item).success) {
        ctx.addIssue({ code: 'invalid_format', format: 'email', input: item, path: pathOf(i), message: 'Must be a valid email address' });
        ok = false;
      }
    });
    return ok ? (list as string[]) : z.NEVER;
  });
}

/** A required string field that is present only as a string (so `undefined` reads "is required"). */
const requiredAddressList = (field: string, max: number) =>
  z.unknown().superRefine((v, ctx) => {
    if (v === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'string', input: v, message: `${field} is required` });
  }).pipe(addressList(field, max));

export const whatsappPayload = z.strictObject({
  number: z.string(required('number')).regex(/^\d{8,15}$/, 'E.164 without "+": 8 to 15 digits, no spaces'),
  message: z.string(required('message')).min(1, 'message must not be empty').max(4096, 'At most 4096 characters'),
  name: z.string().max(200).optional(),
  email: emailAddress.optional(),
  url: httpUrl.optional(),
  files: z.array(httpUrl).max(10, 'At most 10 files').optional(),
  sector: z.string().min(1).max(100).optional(),
});

export const emailPayload = z
  .strictObject({
    to: requiredAddressList('to', 50),
    subject: z
      .string(required('subject'))
      .min(1, 'subject must not be empty')
      .max(998, 'At most 998 characters')
      .regex(NO_LINE_BREAKS, 'Must not contain CR or LF'),
    body: z.string().min(1).optional(),
    html: z.string().min(1).optional(),
    text: z.string().min(1).optional(),
    bcc: addressList('bcc', 50).optional(),
    fromName: z.string().min(1).max(200).regex(NO_LINE_BREAKS, 'Must not contain CR or LF').optional(),
    inReplyTo: z.string().min(1).max(998).regex(NO_LINE_BREAKS, 'Must not contain CR or LF').optional(),
    references: oneOrMany(z.string().min(1).max(998).regex(NO_LINE_BREAKS, 'Must not contain CR or LF'), 'references', 100).optional(),
  })
  .superRefine(
    (value, ctx) => {
      // Runs even when other fields failed, so that every problem is reported at once; the input may be anything.
      const input = value as unknown as Record<string, unknown> | null;
      if (input && typeof input === 'object' && input.body === undefined && input.html === undefined) {
        ctx.addIssue({ code: 'custom', path: ['body'], message: 'One of body or html is required' });
      }
    },
    { when: () => true },
  );

const metadataValue = z.union([z.string().max(500, 'At most 500 characters'), z.number(), z.boolean()], {
  error: 'Metadata values must be strings, numbers or booleans',
});

export const smsPayload = z.strictObject({
  to: z.string(required('to')).regex(/^\+\d{8,15}$/, 'E.164: "+" then 8 to 15 digits'),
  body: z
    .string(required('body'))
    .min(1, 'body must not be empty')
    .refine((b) => [...b].length <= 1600, 'At most 1600 characters'),
  mediaUrls: z.array(httpsUrl).max(10, 'At most 10 media URLs').optional(),
  metadata: z
    .record(z.string().min(1).max(40, 'Metadata keys have at most 40 characters'), metadataValue)
    .refine((m) => Object.keys(m).length <= 20, 'At most 20 keys')
    .optional(),
});

export type WhatsAppPayload = z.output<typeof whatsappPayload>;
export type EmailPayload = z.output<typeof emailPayload>;
export type SmsPayload = z.output<typeof smsPayload>;

export type SendPayload =
  | { type: 'whatsapp'; payload: WhatsAppPayload }
  | { type: 'email'; payload: EmailPayload }
  | { type: 'sms'; payload: SmsPayload };

export const PAYLOAD_SCHEMAS = { whatsapp: whatsappPayload, email: emailPayload, sms: smsPayload } satisfies Record<ChannelType, z.ZodType>;

/** Better words than "Unknown field" for unknown fields callers commonly send. */
export const SEND_UNKNOWN_FIELD_MESSAGES: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, {
  // Null prototype: a field named "toString" or "constructor" must not find Object.prototype's members here.
  channelType: 'channelType is derived from the token',
});

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
