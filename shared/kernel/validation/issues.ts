import type * as z from './zod.ts';

/** One problem with the input, as the contract's `details[]` lists it: where, what, and the zod issue code. */
export interface ErrorDetail {
  path: string;
  message: string;
  code: string;
}

/** Messages for unknown fields that deserve a better explanation than "Unknown field". */
export type UnknownFieldMessages = Record<string, string>;

/** zod issues as the contract's `details[]`: one entry per problem; one per unknown field. */
export function zodIssuesToDetails(
  issues: readonly z.core.$ZodIssue[],
  unknownFieldMessages: UnknownFieldMessages = {},
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        details.push({
          path: base ? `${base}.${key}` : key,
          message:
            (Object.hasOwn(unknownFieldMessages, key) ? unknownFieldMessages[key] : undefined) ??
            `Unknown field "${key}"`,
          code: 'unrecognized_keys',
        });
      }
      continue;
    }
    details.push({ path: base, message: issue.message, code: issue.code });
  }
  return details;
}
