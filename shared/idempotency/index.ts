/** Idempotency: the store behind Idempotency-Key (claim, replay, conflict). */
export type { ClaimResult, IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency-store.ts';
