/**
 * Idempotency: `Idempotency-Key` on the routes that take it (claim, replay for 24 h, conflict), its store port and
 * its store on the table. The only way into the area from outside it.
 */
export type { ClaimResult, IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency-store.ts';
export { idempotency } from './api/idempotency-middleware.ts';
export { idempotencyOnDynamo } from './wiring.ts';
