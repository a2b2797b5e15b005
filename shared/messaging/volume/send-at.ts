import type { ErrorDetail } from '../../kernel/validation/issues.ts';

/** The nearest and farthest a scheduled send may be, from the moment it is accepted. */
export const SEND_AT_MIN_MS = 60_000;
export const SEND_AT_MAX_MS = 35 * 86_400_000;

/** RFC 3339 with its offset (`Z` or `±hh:mm`): a time without one would depend on a zone nobody named. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** `sendAt` as a UTC ISO time, or the `details` entry that says why it cannot be one. */
export function parseSendAt(
  value: unknown,
  now: Date,
  path = 'sendAt',
): { ok: true; sendAt: string } | { ok: false; detail: ErrorDetail } {
  const bad = (message: string, code = 'invalid_format') => ({ ok: false, detail: { path, message, code } }) as const;
  if (typeof value !== 'string' || !RFC3339.test(value))
    return bad('An RFC 3339 date-time with its offset, e.g. 2026-12-24T09:00:00-03:00 or 2026-12-24T12:00:00Z');
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return bad('Not a real date and time');
  const ahead = at - now.getTime();
  if (ahead < SEND_AT_MIN_MS) return bad('At least 60 seconds from now', 'too_small');
  if (ahead > SEND_AT_MAX_MS) return bad('At most 35 days from now', 'too_big');
  return { ok: true, sendAt: new Date(at).toISOString() };
}

/** The send body without `sendAt` (the payload schemas know no such field), and `sendAt` as given. */
export function splitSendAt(body: unknown): { body: unknown; sendAt?: unknown; hasSendAt: boolean } {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('sendAt' in body))
    return { body, hasSendAt: false };
  const { sendAt, ...rest } = body as Record<string, unknown>;
  return { body: rest, sendAt, hasSendAt: true };
}
