import { admitted, intervalMs, refused, type GcraParams, type RateDecision, type RateLimiter } from '../gcra.ts';
import { conditionalWrite, type DynamoTable, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys } from '../../contract/keys.ts';

/** Keys whose last known bucket state this instance remembers (an order hint only; see below). */
const MAX_HINTS = 10_000;

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
 * token: 3.5 DynamoDB calls per request instead of 3, BENCHMARKS.md issue 2); an occasional caller is idle. The
 * hint never decides anything: each write's condition does, so a stale or missing hint (another instance moved the
 * bucket) costs one write, never a wrong answer.
 */
export class DynamoRateLimiter implements RateLimiter {
  private readonly lastTat = new Map<string, number>();

  constructor(
    private readonly table: DynamoTable,
    private readonly params: GcraParams,
  ) {}

  async admit(key: string, now: number): Promise<RateDecision> {
    const hint = this.lastTat.get(key);
    const busyFirst = hint !== undefined && hint > now;
    if (busyFirst) {
      const busy = await this.busy(key, now);
      if (busy.kind === 'admitted') return this.remember(key, busy.tat, admitted(busy.tat, now, this.params));
      // Refused as busy: the bucket is either full (refuse) or idle by now (the idle write tells).
      if (busy.tat !== undefined && busy.tat > now)
        return this.remember(key, busy.tat, refused(busy.tat, now, this.params));
      const idle = await this.idle(key, now);
      if (idle.kind === 'admitted') return this.remember(key, idle.tat, admitted(idle.tat, now, this.params));
      return this.remember(key, busy.tat, refused(busy.tat, now, this.params));
    }
    const idle = await this.idle(key, now);
    if (idle.kind === 'admitted') return this.remember(key, idle.tat, admitted(idle.tat, now, this.params));
    const busy = await this.busy(key, now);
    if (busy.kind === 'admitted') return this.remember(key, busy.tat, admitted(busy.tat, now, this.params));
    return this.remember(key, busy.tat, refused(busy.tat, now, this.params));
  }

  /** Bucket idle or full (TAT <= now, or no item): TAT := now + interval. */
  private async idle(key: string, now: number): Promise<{ kind: 'admitted'; tat: number } | { kind: 'not-idle' }> {
    const tat = now + intervalMs(this.params);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.rateLimit(key),
        UpdateExpression: 'SET tat = :next, expiresAt = :exp',
        ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
        ExpressionAttributeValues: { ':next': tat, ':now': now, ':exp': this.expiresAt(now) },
      }),
    );
    return write.applied ? { kind: 'admitted', tat } : { kind: 'not-idle' };
  }

  /**
   * Bucket busy and one more fits (now < TAT <= now + window - interval): TAT := TAT + interval. On a refusal
   * DynamoDB returns the item, so the caller knows whether it was full or idle; dynalite does not (`tat` unknown).
   */
  private async busy(
    key: string,
    now: number,
  ): Promise<{ kind: 'admitted'; tat: number } | { kind: 'refused'; tat: number | undefined }> {
    const t = intervalMs(this.params);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.rateLimit(key),
        UpdateExpression: 'SET tat = tat + :t, expiresAt = :exp',
        ConditionExpression: 'tat > :now AND tat <= :max',
        ExpressionAttributeValues: {
          ':t': t,
          ':now': now,
          ':max': now + this.params.windowMs - t,
          ':exp': this.expiresAt(now),
        },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    if (write.applied) return { kind: 'admitted', tat: write.output.Attributes?.tat as number };
    const tatBefore = write.itemBefore?.tat?.N;
    return { kind: 'refused', tat: tatBefore !== undefined ? Number(tatBefore) : undefined };
  }

  private expiresAt(now: number): number {
    return Math.ceil((now + this.params.windowMs) / 1000) + 60;
  }

  private remember(key: string, tat: number | undefined, decision: RateDecision): RateDecision {
    if (tat === undefined) return decision;
    if (this.lastTat.size >= MAX_HINTS && !this.lastTat.has(key)) this.lastTat.clear();
    this.lastTat.set(key, tat);
    return decision;
  }
}
