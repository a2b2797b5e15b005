import { type ChannelPacer, type Pace, paceSlots } from './pace.ts';
import { makeDepartures } from './departures.ts';
import { type DeferredMessage, type DeferredStore, isDeferred, type OutboundJob } from './deferred.ts';
import type { FireOutcome } from './send-deferred.ts';
import type { SendLookup } from '../conversation.ts';
import type { DepartureGate } from '../providers.ts';

/** A job whose turn is this close waits in the worker; further away it goes back on the queue (whole seconds). */
export const PACE_HORIZON_MS = 2_000;
/**
 * How far ahead a worker that can queue jobs again reserves turns: a job whose turn is further off keeps it and is
 * queued again to come back shortly before it (SQS delays reach 900 s); beyond this it goes back without one.
 */
const RESERVE_AHEAD_MS = 600_000;
/** A job queued again with its turn comes back about this long before it (SQS delays count whole seconds: 1-2 s more). */
const BACK_BEFORE_TURN_MS = 1_000;
/** A scheduled job that arrives this early (SQS delays count whole seconds) waits in the worker for its time. */
const EARLY_WAIT_MS = 1_500;
/** How long before its instant a message starts its checks (then waits for the claim's moment). */
const PREPARE_MS = 300;
/** How long before its instant a message is claimed and charged (then waits for the instant and takes its slot). */
const CLAIM_LEAD_MS = 200;
/** A claim this old belongs to a worker that died: above the outbound worker's 60 s timeout. */
const STALE_CLAIM_MS = 75_000;
/** A job that met an outage (a store that did not answer) comes back this soon. */
const RETRY_SECONDS = 2;

export interface WorkOutboundDeps {
  store: Pick<DeferredStore, 'getMany'>;
  pacer: Pick<ChannelPacer, 'reserve' | 'admit'>;
  /** The channel's pace and type as stored (a few seconds old at most); undefined when the channel is gone. */
  paceOf: (projectId: string, channelId: string) => Promise<Pace | undefined>;
  /**
   * The channel and what the checks of these bodies read, in one read (a group of sends due within moments of each
   * other); undefined when the channel is gone.
   */
  lookup?: (projectId: string, channelId: string, bodies: readonly unknown[]) => Promise<SendLookup | undefined>;
  /**
   * Sends it: `turn` (a moment before its instant) is awaited after its checks and before its claim and charge,
   * `departure` (its instant and its slot taken) after them, right before the provider call, answering the gate the
   * provider asks last (none when the channel has no pace); `lookup`, when given, is what its checks read.
   */
  fire: (
    message: DeferredMessage,
    turn: () => Promise<void>,
    departure: () => Promise<DepartureGate | undefined>,
    lookup?: () => Promise<SendLookup | undefined>,
  ) => Promise<FireOutcome>;
  abandon: (message: DeferredMessage) => Promise<void>;
  /**
   * Queues jobs again (the outbound queue's send), each visible after its delay. Without it a job whose turn is beyond
   * the horizon goes back on the queue reserving nothing, and asks again when it returns.
   */
  requeue?: (jobs: readonly { job: OutboundJob; delaySeconds: number }[]) => Promise<void>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface OutboundRecord {
  id: string;
  job: OutboundJob;
}

/** What the queue should do with a record: forget it (done), or show it again in `seconds`. */
export type RecordOutcome = { id: string; done: true } | { id: string; done: false; seconds: number };

/**
 * One batch of the outbound queue:
 * 1. the jobs' messages are read at once; each one gone, already sent or canceled, or moved to another time → done; a scheduled one
 *    more than a moment early → back on the queue until its time; one found `sending` → abandoned (never twice);
 * 2. the rest, per channel, reserve their instants and sequence numbers on the channel's pace in one write (pace.ts),
 *    but for jobs queued again with their turn, which keep it; a job whose turn is beyond the horizon is queued again
 *    with it, to come back shortly before it (without `requeue`, or beyond 10 minutes, it goes back on the queue
 *    reserving nothing);
 * 3. each message is claimed and charged a moment before its instant (and its time, if scheduled), then waits for
 *    the instant and takes its slot, the last step before the provider call (send-deferred.ts).
 */
export function makeWorkOutbound(deps: WorkOutboundDeps) {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  const parts: WorkerParts = { deps, now, sleep, departures: makeDepartures(deps, now, sleep) };

  return async function workOutbound(records: readonly OutboundRecord[]): Promise<RecordOutcome[]> {
    const outcomes: RecordOutcome[] = [];
    const ready = new Map<string, { record: OutboundRecord; message: DeferredMessage }[]>();
    const read = await deps.store.getMany(records.map((r) => r.job.messageId)).catch(() => null);
    if (read === null) return records.map((r) => ({ id: r.id, done: false, seconds: RETRY_SECONDS }));
    await Promise.all(
      records.map(async (record) => {
        const found = read.get(record.job.messageId);
        if (!isDeferred(found) || found.status === 'canceled') return outcomes.push({ id: record.id, done: true });
        if (found.status === 'sending') {
          // Another copy of its job may be sending it right now: only a claim older than any worker lives is dead.
          const age = now() - Date.parse(found.claimedAt ?? '');
          if (age < STALE_CLAIM_MS)
            return outcomes.push({ id: record.id, done: false, seconds: Math.ceil((STALE_CLAIM_MS - age) / 1000) });
          await deps.abandon(found);
          return outcomes.push({ id: record.id, done: true });
        }
        if (found.status === 'scheduled') {
          if (record.job.sendAt !== found.sendAt) return outcomes.push({ id: record.id, done: true });
          const early = Date.parse(found.sendAt!) - now();
          if (early > EARLY_WAIT_MS)
            return outcomes.push({ id: record.id, done: false, seconds: Math.min(900, Math.floor(early / 1000)) });
        }
        const group = ready.get(found.channelId) ?? [];
        group.push({ record, message: found });
        ready.set(found.channelId, group);
      }),
    );
    await Promise.all(
      [...ready.values()].map(async (group) => {
        // Jobs queued again with their turn keep it; the others reserve theirs together.
        const held = group.filter((g) => g.record.job.turn !== undefined);
        const fresh = group.filter((g) => g.record.job.turn === undefined);
        const first = group[0]!.message;
        let plan: ReturnType<typeof paceSlots> | undefined;
        let start: { at: number; seq: number } | { later: number } = { at: now(), seq: 0 };
        try {
          const pace = await deps.paceOf(first.projectId, first.channelId);
          // A channel deleted meanwhile: each message fails as its send would (CHANNEL_NOT_FOUND), unpaced.
          plan = pace ? paceSlots(pace.perSecond) : undefined;
          if (plan && fresh.length) {
            const ahead = deps.requeue ? RESERVE_AHEAD_MS : PACE_HORIZON_MS;
            start = await deps.pacer.reserve(first.channelId, fresh.length, plan.spacingMs, now(), ahead);
          }
        } catch {
          // The store did not answer: every job of the group comes back shortly (a held turn is never sent unpaced).
          for (const { record } of group) outcomes.push({ id: record.id, done: false, seconds: RETRY_SECONDS });
          return;
        }
        const turns: Turned[] = held.map((g) => ({ ...g, ...g.record.job.turn! }));
        if ('at' in start) {
          const { at, seq } = start;
          turns.push(...fresh.map((g, i) => ({ ...g, at: at + i * (plan?.spacingMs ?? 0), seq: seq + i })));
        } else {
          const seconds = Math.max(1, Math.floor((start.later - now()) / 1000));
          for (const { record } of fresh) outcomes.push({ id: record.id, done: false, seconds });
        }
        // A group whose first turn is beyond the horizon is not waited for here (a group's later turns are, as they
        // always were): its jobs are queued again to come back shortly before their turns.
        const beyond = (at: number) => deps.requeue !== undefined && plan !== undefined && at - now() > PACE_HORIZON_MS;
        const far = turns.filter((t, i) => beyond(i < held.length ? t.at : turns[held.length]!.at));
        const near = turns.filter((t) => !far.includes(t)).sort((a, b) => a.at - b.at);
        await Promise.all([requeueFar(parts, far, outcomes), sendNear(parts, near, plan, outcomes)]);
      }),
    );
    return outcomes;
  };
}

/** A job with its message and its turn on the channel's pace (reserved now, or carried by the job). */
interface Turned {
  record: OutboundRecord;
  message: DeferredMessage;
  at: number;
  seq: number;
}

/**
 * Jobs whose reserved turn is beyond the horizon: queued again with it, visible about {@link BACK_BEFORE_TURN_MS}
 * before it (the received copy is then done); instead of going back reserving nothing and asking again on every
 * return while other jobs take the turns ahead. A failure to queue puts the received copy back instead (its turn
 * stays unused: the pace is only slower for it).
 */
async function requeueFar(
  { deps, now }: WorkerParts,
  far: readonly Turned[],
  outcomes: RecordOutcome[],
): Promise<void> {
  if (!far.length) return;
  const delayOf = (at: number) => Math.min(900, Math.max(0, Math.floor((at - now() - BACK_BEFORE_TURN_MS) / 1000)));
  const jobs = far.map((t) => ({
    job: { ...t.record.job, turn: { at: t.at, seq: t.seq } },
    delaySeconds: delayOf(t.at),
  }));
  const queued = await deps.requeue!(jobs).then(
    () => true,
    () => false,
  );
  for (const t of far)
    outcomes.push(
      queued ? { id: t.record.id, done: true } : { id: t.record.id, done: false, seconds: Math.max(1, delayOf(t.at)) },
    );
}

/** Each job whose turn is near: checked, claimed and charged just before its instant, then through its slot. */
async function sendNear(
  { deps, now, sleep, departures }: WorkerParts,
  near: readonly Turned[],
  plan: ReturnType<typeof paceSlots> | undefined,
  outcomes: RecordOutcome[],
): Promise<void> {
  const { admitted, sharedLookups, aheadMs } = departures;
  const lookups = sharedLookups(near.map((t) => t.message));
  await Promise.all(
    near.map(async ({ record, message, at: turnAt, seq }, i) => {
      const at = Math.max(turnAt, message.sendAt ? Date.parse(message.sendAt) : 0);
      // The checks, the claim and the charge take their time before the turn, and the slot's write after them
      // as long as its answers take: begin them that much early, so that the slot is asked for in time for the
      // instant (a later ask pushes the slot's stamp, and every later send through it, past its instant).
      const lead = plan ? aheadMs() : 0;
      const early = at - now() - PREPARE_MS - lead;
      if (early > 0) await sleep(early);
      const turn = async () => {
        const wait = at - (plan ? CLAIM_LEAD_MS + lead : 0) - now();
        if (wait > 0) await sleep(wait);
      };
      const departure = async () => {
        // Late or early, a send goes only through its slot, free a whole window after the slot's last send.
        if (plan) return admitted(message.channelId, seq % plan.slots, plan.slots, plan.admitWindowMs, at);
        const wait = at - now();
        if (wait > 0) await sleep(wait);
        return undefined;
      };
      const outcome = await deps
        .fire(message, turn, departure, lookups?.(i))
        .catch((): FireOutcome => ({ done: false, retryInSeconds: RETRY_SECONDS }));
      outcomes.push(
        outcome.done ? { id: record.id, done: true } : { id: record.id, done: false, seconds: outcome.retryInSeconds },
      );
    }),
  );
}

/** What a worker's steps share: its ports, its clock, its departures (slots and reads kept across its batches). */
interface WorkerParts {
  deps: WorkOutboundDeps;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  departures: ReturnType<typeof makeDepartures>;
}
