import { randomUUID } from 'node:crypto';

const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** True when a caller's `x-request-id` has the contract's shape (1-128 of letters, digits, `._:-`). */
export function isWellFormedRequestId(id: string): boolean {
  return CALLER_ID.test(id);
}

/** The caller's `x-request-id` when it has the contract's shape, else a fresh one. */
export function resolveRequestId(callerId: string | undefined, fallback?: string): string {
  if (callerId !== undefined && CALLER_ID.test(callerId)) return callerId;
  return fallback && CALLER_ID.test(fallback) ? fallback : randomUUID();
}
