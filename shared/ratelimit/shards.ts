import type { GcraParams, RateDecision } from './gcra.ts';

/**
 * Admitted requests a second one bucket item takes. Each admitted request writes its item once (twice when the
 * instance guessed the bucket's state wrong), and a DynamoDB partition takes 1,000 write units a second: 250 keeps a
 * bucket under half of that even when every guess is wrong.
 */
export const ADMITS_PER_SHARD_PER_SECOND = 250;

/** How many items a bucket of these parameters is spread over: one up to 250 requests a second, then one more per 250. */
export function shardCount(p: GcraParams): number {
  const perSecond = (p.limit * 1000) / p.windowMs;
  return Math.max(1, Math.ceil(perSecond / ADMITS_PER_SHARD_PER_SECOND - 1e-9));
}

/**
 * One shard's bucket: the same window, a `shards`-th of the requests. Each shard admits at most its share in any
 * window, so all of them together never admit more than the whole bucket would.
 */
export function shardParams(p: GcraParams, shards: number): GcraParams {
  return shards === 1 ? p : { limit: p.limit / shards, windowMs: p.windowMs };
}

/** One shard's decision as the whole bucket's (its limit, and the shard's room scaled to all shards). */
export function wholeBucket(decision: RateDecision, p: GcraParams, shards: number): RateDecision {
  if (shards === 1) return decision;
  return { ...decision, limit: p.limit, remaining: Math.min(p.limit, Math.floor(decision.remaining * shards)) };
}
