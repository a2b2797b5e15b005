import {
  admitted,
  intervalMs,
  refused,
  type GcraParams,
  type RateDecision,
  type RateLimiter,
  type RateLimitStore,
} from '../gcra.ts';
import { shardCount, shardParams, wholeBucket } from '../shards.ts';
import { conditionalWrite, type DynamoTable, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { DependencyOverloadedError } from '../../kernel/overload.ts';
import { keys } from '../../contract/keys.ts';

/** Keys whose last known bucket state this instance remembers (an order hint only; see below). */
const MAX_HINTS = 10_000;
/**
 * A request's time further back than this is not a wait behind other work but a time given on purpose (a replay, a
 * test's clock): its refusal stands.
 */
const STALE_AFTER_MS = 300_000;

type Step = { kind: 'admitted'; tat: number } | { kind: 'refused'; tat: number | undefined };

/**
 * GCRA in DynamoDB with no read and at most two conditional writes, so it holds across any number of instances:
 *  - idle: bucket full or idle (TAT <= now): TAT := now + interval;
 *  - busy: TAT > now and one more fits (TAT <= now + window - interval): TAT := TAT + interval;
 *  - else refused. A write that loses a race is not retried: losing means the bucket moved, and the other step or
 *    the refusal is the right answer for the state it lost to.
 *
 * Which write goes first is a guess, and a wrong guess costs the second write. Decision: guess from the TAT this
 * instance last saw for the key. A token under load (requests arriving together, judged at their arrival time) is
 * busy, and trying `idle` first made about half of its requests pay two writes (health at 32 connections on one
 * token: 3.5 DynamoDB calls per request instead of 3, bench/history/2026-11-health-and-start-up.md); an occasional caller is idle. The
 * hint never decides anything: each write's condition does, so a stale or missing hint (another instance moved the
 * bucket) costs one write, never a wrong answer. One exception, exact too: TAT only ever grows, so a hint that
 * already proves the bucket full refuses without writing (a caller hammering a full bucket costs its item nothing).
 *
 * A bucket allowing more than 250 requests a second is spread over several items (shards.ts): each request goes to
 * one at random, and to a second one when the first is full, so one item never takes more than half a partition's
 * write units. A write that fails for any other reason than its condition (throttled, unreachable) fails the
 * decision: the caller refuses the request rather than admit it unchecked.
 */
export class DynamoRateLimitStore implements RateLimitStore {
  private readonly lastTat = new Map<string, number>();

  constructor(
    private readonly table: DynamoTable,
    private readonly random: () => number = Math.random,
    private readonly clock: () => number = Date.now,
  ) {}

  async admit(key: string, now: number, params: GcraParams): Promise<RateDecision> {
    const shards = shardCount(params);
    const p = shardParams(params, shards);
    const first = shards === 1 ? 0 : Math.floor(this.random() * shards);
    const decision = await this.admitShard(shardKey(key, first, shards), now, p);
    if (decision.allowed || shards === 1) return wholeBucket(decision, params, shards);
    // That shard is full: one more, any other (a bucket near its limit is full on most shards at once anyway).
    const second = (first + 1 + Math.floor(this.random() * (shards - 1))) % shards;
    const other = await this.admitShard(shardKey(key, second, shards), now, p);
    if (other.allowed) return wholeBucket(other, params, shards);
    const soonest = (other.retryAfterSeconds ?? 1) < (decision.retryAfterSeconds ?? 1) ? other : decision;
    return wholeBucket(soonest, params, shards);
  }

  /**
   * One item's decision at `now`; a refusal of a request whose `now` is already more than an interval old (it
   * waited behind other work, or the SDK retried its write) is judged again at the current time, once. Others judged
   * at later times moved the bucket past a stale `now`, and a bucket of one second's worth would otherwise refuse a
   * request that merely waited a second. (Judging it later is judging it as arriving later: the bucket's bound holds.)
   */
  private async admitShard(key: string, now: number, p: GcraParams): Promise<RateDecision> {
    const decision = await this.decideShard(key, now, p);
    if (decision.allowed) return decision;
    const later = this.clock();
    const waited = later - now;
    if (waited <= intervalMs(p) || waited > STALE_AFTER_MS) return decision;
    return this.decideShard(key, later, p);
  }

  private async decideShard(key: string, now: number, p: GcraParams): Promise<RateDecision> {
    const hint = this.lastTat.get(key);
    const t = intervalMs(p);
    if (hint !== undefined && hint > now + p.windowMs - t) return refused(hint, now, p);
    try {
      const busyFirst = hint !== undefined && hint > now;
      if (busyFirst) {
        const busy = await this.busy(key, now, p);
        if (busy.kind === 'admitted') return this.remember(key, busy.tat, admitted(busy.tat, now, p));
        // Refused as busy: the bucket is either full (refuse) or idle by now (the idle write tells).
        if (busy.tat !== undefined && busy.tat > now) return this.remember(key, busy.tat, refused(busy.tat, now, p));
        const idle = await this.idle(key, now, p);
        if (idle.kind === 'admitted') return this.remember(key, idle.tat, admitted(idle.tat, now, p));
        return this.remember(key, busy.tat, refused(busy.tat, now, p));
      }
      const idle = await this.idle(key, now, p);
      if (idle.kind === 'admitted') return this.remember(key, idle.tat, admitted(idle.tat, now, p));
      const busy = await this.busy(key, now, p);
      if (busy.kind === 'admitted') return this.remember(key, busy.tat, admitted(busy.tat, now, p));
      return this.remember(key, busy.tat, refused(busy.tat, now, p));
    } catch (cause) {
      throw new DependencyOverloadedError('The rate limit could not be checked', { cause });
    }
  }

  /** Bucket idle or full (TAT <= now, or no item): TAT := now + interval. */
  private async idle(key: string, now: number, p: GcraParams): Promise<Step> {
    const tat = now + intervalMs(p);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.rateLimit(key),
        UpdateExpression: 'SET tat = :next, expiresAt = :exp',
        ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
        ExpressionAttributeValues: { ':next': tat, ':now': now, ':exp': expiresAt(now, p) },
      }),
    );
    return write.applied ? { kind: 'admitted', tat } : { kind: 'refused', tat: undefined };
  }

  /**
   * Bucket busy and one more fits (now < TAT <= now + window - interval): TAT := TAT + interval. On a refusal
   * DynamoDB returns the item, so the caller knows whether it was full or idle (the local stand-in does too,
   * local/dynalite-fidelity.ts); a store that does not leaves `tat` unknown.
   */
  private async busy(key: string, now: number, p: GcraParams): Promise<Step> {
    const t = intervalMs(p);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.rateLimit(key),
        UpdateExpression: 'SET tat = tat + :t, expiresAt = :exp',
        ConditionExpression: 'tat > :now AND tat <= :max',
        ExpressionAttributeValues: { ':t': t, ':now': now, ':max': now + p.windowMs - t, ':exp': expiresAt(now, p) },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    if (write.applied) return { kind: 'admitted', tat: write.output.Attributes?.tat as number };
    const tatBefore = write.itemBefore?.tat?.N;
    return { kind: 'refused', tat: tatBefore !== undefined ? Number(tatBefore) : undefined };
  }

  private remember(key: string, tat: number | undefined, decision: RateDecision): RateDecision {
    if (tat === undefined) return decision;
    if (this.lastTat.size >= MAX_HINTS && !this.lastTat.has(key)) this.lastTat.clear();
    if (tat > (this.lastTat.get(key) ?? 0)) this.lastTat.set(key, tat);
    return decision;
  }
}

const expiresAt = (now: number, p: GcraParams) => Math.ceil((now + p.windowMs) / 1000) + 60;

/** The item of one shard: the key itself when there is one shard (as before sharding), else `<key>#<shard>`. */
const shardKey = (key: string, shard: number, shards: number) => (shards === 1 ? key : `${key}#${shard}`);

/** One bucket's parameters for every key: the Bots API's per-token limit. */
export class DynamoRateLimiter implements RateLimiter {
  private readonly store: DynamoRateLimitStore;

  constructor(
    table: DynamoTable,
    private readonly params: GcraParams,
    clock: () => number = Date.now,
  ) {
    this.store = new DynamoRateLimitStore(table, Math.random, clock);
  }

  admit(key: string, now: number): Promise<RateDecision> {
    return this.store.admit(key, now, this.params);
  }
}
