import { type ChannelPacer, DEPARTURE_TOLERANCE_MS, type Pace, paceSlots, type SlotAnswer } from './pace.ts';
import { type DeferredMessage, type DeferredStore, isDeferred, type OutboundJob } from './deferred.ts';
import type { FireOutcome } from './send-deferred.ts';
import type { SendLookup } from '../conversation.ts';

/** A job whose turn is this close waits in the worker; further away it goes back on the queue (whole seconds). */
export const PACE_HORIZON_MS = 2_000;
/** A scheduled job that arrives this early (SQS delays count whole seconds) waits in the worker for its time. */
const EARLY_WAIT_MS = 1_500;
/** How long before its instant a message starts its checks (then waits for the claim's moment). */
const PREPARE_MS = 300;
/** How long before its instant a message is claimed and charged (then waits for the instant and takes its slot). */
const CLAIM_LEAD_MS = 200;
/**
 * How many times a send that found itself late after taking its slot takes it again (one write each, each further
 * ahead as its answers came later). Still late then, it does not leave late: its departure fails, its claim and charge
 * are given back and its job comes back shortly (a store that never answers in time must not hold a claimed message
 * for ever, nor put two sends of one slot in one second).
 */
const MAX_RETAKES = 3;
/**
 * A slot is taken at most this far ahead of its departure: far enough for a slow answer on a loaded service, and
 * a slot taken by a send that then died stays unused no longer than this.
 */
const MAX_AHEAD_MS = 1_000;
/** The weight of each new answer in the moving averages of the slot writes' answer time and of its spread. */
const ANSWER_WEIGHT = 0.2;
/** A slot is taken this many spreads ahead of the average answer, so that nearly every answer comes before it. */
const SPREADS_AHEAD = 4;
/**
 * A group's sends whose checks begin within this of one read share it: the data a send is checked against is then at
 * most this much older than its own read would have been (checks begin 300 ms before the instant anyway).
 */
const LOOKUP_SHARED_MS = 250;
/**
 * Sends that ask for their slots within this of each other share one write (a group of 10 at 80 a second spans
 * 125 ms). Well under a window: a slot's next send never takes it before the last one has left (or taken it again).
 */
const TAKEN_TOGETHER_MS = 250;
/** How many slots' last sends a worker keeps in mind (the oldest forgotten first). */
const SLOTS_REMEMBERED = 2_000;
/** A claim this old belongs to a worker that died: above the outbound worker's 60 s timeout. */
const STALE_CLAIM_MS = 75_000;
/** A job that met an outage (a store that did not answer) comes back this soon. */
const RETRY_SECONDS = 2;
/** An admission the store did not answer is asked again this soon. */
const ADMIT_RETRY_MS = 50;
/** A slot store that has not answered for this long fails the send's departure (its claim and charge given back). */
const ADMIT_GIVE_UP_MS = 10_000;

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
   * `departure` (its instant and its slot taken) after them, right before the provider call; `lookup`, when given,
   * is what its checks read.
   */
  fire: (
    message: DeferredMessage,
    turn: () => Promise<void>,
    departure: () => Promise<void>,
    lookup?: () => Promise<SendLookup | undefined>,
  ) => Promise<FireOutcome>;
  abandon: (message: DeferredMessage) => Promise<void>;
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
 * 2. the rest, per channel, reserve their instants and sequence numbers on the channel's pace in one write (pace.ts):
 *    a group whose turn is beyond the horizon goes back on the queue until about then, reserving nothing;
 * 3. each message is claimed and charged a moment before its instant (and its time, if scheduled), then waits for
 *    the instant and takes its slot, the last step before the provider call (send-deferred.ts).
 */
export function makeWorkOutbound(deps: WorkOutboundDeps) {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  const { admitted, sharedLookups } = makeDepartures(deps, now, sleep);

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
        const first = group[0]!.message;
        let start: { at: number; seq: number } | { later: number };
        let plan: ReturnType<typeof paceSlots> | undefined;
        try {
          const pace = await deps.paceOf(first.projectId, first.channelId);
          // A channel deleted meanwhile: each message fails as its send would (CHANNEL_NOT_FOUND), unpaced.
          plan = pace ? paceSlots(pace.perSecond) : undefined;
          start = plan
            ? await deps.pacer.reserve(first.channelId, group.length, plan.spacingMs, now(), PACE_HORIZON_MS)
            : { at: now(), seq: 0 };
        } catch {
          start = { later: now() + RETRY_SECONDS * 1000 };
        }
        if (!('at' in start)) {
          const seconds = Math.max(1, Math.floor((start.later - now()) / 1000));
          for (const { record } of group) outcomes.push({ id: record.id, done: false, seconds });
          return;
        }
        const { at: startAt, seq } = start;
        const lookups = sharedLookups(group.map((g) => g.message));
        await Promise.all(
          group.map(async ({ record, message }, i) => {
            const at = Math.max(startAt + i * (plan?.spacingMs ?? 0), message.sendAt ? Date.parse(message.sendAt) : 0);
            // The checks, the claim and the charge take their time before the turn: begin them a moment early.
            const early = at - now() - PREPARE_MS;
            if (early > 0) await sleep(early);
            const turn = async () => {
              const wait = at - (plan ? CLAIM_LEAD_MS : 0) - now();
              if (wait > 0) await sleep(wait);
            };
            const departure = async () => {
              // Late or early, a send goes only through its slot, free a whole window after the slot's last send.
              if (plan) return admitted(message.channelId, (seq + i) % plan.slots, plan.admitWindowMs, at);
              const wait = at - now();
              if (wait > 0) await sleep(wait);
            };
            const outcome = await deps
              .fire(message, turn, departure, lookups?.(i))
              .catch((): FireOutcome => ({ done: false, retryInSeconds: RETRY_SECONDS }));
            outcomes.push(
              outcome.done
                ? { id: record.id, done: true }
                : { id: record.id, done: false, seconds: outcome.retryInSeconds },
            );
          }),
        );
      }),
    );
    return outcomes;
  };
}

/** A send that woke too late after its slot's stamp every time it took it: it gives its turn back. */
class LateDepartureError extends Error {
  constructor(lateMs: number) {
    super(`the send woke ${lateMs} ms after its slot's stamp after ${MAX_RETAKES} retakes: its turn is given back`);
  }
}

/** A send waiting for its slot's write (`takeSlot`). */
interface Asking {
  slot: number;
  /** When it departs, read when its write is made. */
  departAt: () => number;
  mine?: number;
  settle: (taken: Promise<{ answer: SlotAnswer; stamp: number }>) => void;
}

/** A worker's slots and reads for its sends, kept across its batches (what it saw of the slots, how its answers come). */
function makeDepartures(
  deps: Pick<WorkOutboundDeps, 'pacer' | 'lookup'>,
  now: () => number,
  sleep: (ms: number) => Promise<void>,
) {
  /** When each slot (`channel#slot`) was last seen taken by this worker; kept for the slots of recent sends only. */
  const lastSeen = new Map<string, number>();
  function remember(key: string, at: number): void {
    lastSeen.delete(key);
    lastSeen.set(key, Math.max(at, lastSeen.get(key) ?? 0));
    if (lastSeen.size > SLOTS_REMEMBERED) lastSeen.delete(lastSeen.keys().next().value!);
  }

  /**
   * How long this worker's slot writes take to answer lately, and how much that varies (moving averages, as TCP
   * times its retransmissions): a slot is taken that far ahead of its departure.
   */
  let answerMs = 0;
  let spreadMs = 0;
  const aheadMs = () => Math.min(MAX_AHEAD_MS, Math.round(answerMs + SPREADS_AHEAD * spreadMs));
  function noteAnswer(ms: number): void {
    const error = ms - answerMs;
    answerMs += error * ANSWER_WEIGHT;
    spreadMs += (Math.abs(error) - spreadMs) * ANSWER_WEIGHT;
  }

  /** The stamps of this worker's slot writes not answered yet (`channel#slot`). */
  const inFlight = new Map<string, number>();
  /** Slot requests of this worker waiting for their write, per channel and window. */
  const asking = new Map<string, Asking[]>();

  /**
   * Takes `slot` for a send departing at `departAt` (0: as soon as the answer allows), with every other send of this
   * worker on the channel that waits for its own slot and would ask within {@link TAKEN_TOGETHER_MS}: one write for
   * them all (dynamo-channel-pacer.ts), rather than one each. The request is made when the earliest of them must ask,
   * as far ahead of its departure as answers take; each gets its stamp, its departure or the answer's arrival if
   * later.
   */
  async function takeSlot(
    channelId: string,
    windowMs: number,
    slot: number,
    departAt: () => number,
    mine?: number,
  ): Promise<{ answer: SlotAnswer; stamp: number }> {
    const key = `${channelId}#${windowMs}`;
    let settle!: (taken: Promise<{ answer: SlotAnswer; stamp: number }>) => void;
    const taken = new Promise<{ answer: SlotAnswer; stamp: number }>((resolve) => {
      settle = resolve;
    });
    // A send that asks for a slot another send of this worker is still waiting for goes a window after that one,
    // rather than take the slot first and have the other refused (and asked again a window later). A retake holds
    // its slot and goes at once.
    const before =
      mine === undefined ? (asking.get(key) ?? []).filter((a) => a.slot === slot && a.mine === undefined) : [];
    const departure = () =>
      Math.max(departAt(), ...before.filter((a) => asking.get(key)?.includes(a)).map((a) => a.departAt() + windowMs));
    const mineAsking: Asking = { slot, departAt: departure, ...(mine === undefined ? {} : { mine }), settle };
    asking.set(key, [...(asking.get(key) ?? []), mineAsking]);
    for (;;) {
      const wake = departure() - aheadMs();
      if (wake <= now()) break;
      await sleep(wake - now());
      if (!asking.get(key)?.includes(mineAsking)) return taken;
    }
    const waiting = asking.get(key) ?? [];
    const asked = now();
    const ahead = aheadMs();
    // This send first, then the others due soon enough, no slot twice in one write. Their departures are read now:
    // a slot taken since they began waiting (by a send that took it again later) moves theirs.
    const batch = [{ asking: mineAsking, departAt: departure() }];
    for (const other of waiting) {
      if (other === mineAsking || batch.some((b) => b.asking.slot === other.slot)) continue;
      const otherDepartAt = other.departAt();
      if (otherDepartAt <= asked + ahead + TAKEN_TOGETHER_MS) batch.push({ asking: other, departAt: otherDepartAt });
    }
    const rest = waiting.filter((w) => !batch.some((b) => b.asking === w));
    if (rest.length) asking.set(key, rest);
    else asking.delete(key);
    const stamps = batch.map((b) => Math.max(b.departAt, asked + ahead));
    // What the slots will hold if this write is let through: a send asking meanwhile does not ask before they free.
    const slotKeys = batch.map(({ asking: b }) => `${channelId}#${b.slot}`);
    for (const [j, slotKey] of slotKeys.entries()) inFlight.set(slotKey, stamps[j]!);
    const answers = deps.pacer.admit(
      channelId,
      windowMs,
      batch.map(({ asking: b }, j) => ({
        slot: b.slot,
        at: stamps[j]!,
        ...(b.mine === undefined ? {} : { mine: b.mine }),
      })),
    );
    const settled = () => {
      for (const [j, slotKey] of slotKeys.entries()) if (inFlight.get(slotKey) === stamps[j]) inFlight.delete(slotKey);
    };
    void answers.then((answered) => {
      noteAnswer(now() - asked);
      settled();
      // Every slot the write saw, as other workers left them: none is asked before it frees.
      for (const [slot, stamp] of answered.stamps) remember(`${channelId}#${slot}`, stamp);
    }, settled);
    for (const [j, { asking: b }] of batch.entries())
      b.settle(answers.then((all) => ({ answer: all.answers[j]!, stamp: stamps[j]! })));
    return taken;
  }

  /**
   * Waits until the slot lets the send through, as the last step before the provider call: the slot is asked for a
   * departure at `at` (or when this worker saw the slot free, if later) as far ahead as its answers take, and the
   * send leaves at that stamp. A send that finds itself more than {@link DEPARTURE_TOLERANCE_MS} past its stamp (an
   * answer later than usual, a stalled event loop) never leaves late: it moves its own stamp to a new departure,
   * further ahead as the late answer raised the average (three times at most, then it gives its turn back). Two
   * sends through one slot thus leave at least `windowMs - DEPARTURE_TOLERANCE_MS` (the pace's window) apart,
   * however loaded the service. A store that does not answer is asked again shortly.
   */
  async function admitted(channelId: string, slot: number, windowMs: number, at: number): Promise<void> {
    const key = `${channelId}#${slot}`;
    let mine: number | undefined;
    let failingSince: number | undefined;
    for (let retakes = 0; ; ) {
      // A slot this worker saw taken is not asked before it frees: a refusal costs a write.
      const taken = mine;
      const departAt = () =>
        taken === undefined ? Math.max(at, Math.max(lastSeen.get(key) ?? 0, inFlight.get(key) ?? 0) + windowMs) : 0;
      const asked = now();
      let failed = false;
      const { answer, stamp } = await takeSlot(channelId, windowMs, slot, departAt, mine).catch((error) => {
        // A store that stops answering: the claimed message is given back (and its charge) rather than held.
        failed = true;
        failingSince ??= asked;
        if (now() - failingSince > ADMIT_GIVE_UP_MS) throw error;
        return { answer: { retryAt: now() + ADMIT_RETRY_MS }, stamp: 0 };
      });
      if (!failed) failingSince = undefined;
      if (answer === true) {
        remember(key, stamp);
        if (stamp > now()) await sleep(stamp - now());
        if (now() - stamp <= DEPARTURE_TOLERANCE_MS) return;
        if (retakes >= MAX_RETAKES) throw new LateDepartureError(now() - stamp);
        mine = stamp;
        retakes++;
        continue;
      }
      if (failed) await sleep(Math.max(1, answer.retryAt - now()));
      else {
        // Taken by another send (this one's stamp, if it had one, is gone with it): asked again when it frees.
        remember(key, answer.retryAt - windowMs);
        mine = undefined;
      }
    }
  }

  /**
   * One read of the channel and the checks' items for the sends of a group whose checks begin within
   * {@link LOOKUP_SHARED_MS} of it, instead of one read each: a read begun at send `i` covers every send from `i` on,
   * and the next send whose checks begin later reads again (its data then no older than another send's would be).
   */
  function sharedLookups(messages: readonly DeferredMessage[]) {
    const read = deps.lookup;
    if (!read) return undefined;
    let current: { from: number; at: number; lookup: Promise<SendLookup | undefined> } | undefined;
    return (i: number) => async () => {
      if (!current || i < current.from || now() - current.at > LOOKUP_SHARED_MS) {
        const rest = messages.slice(i);
        const lookup = read(
          messages[i]!.projectId,
          messages[i]!.channelId,
          rest.map((m) => m.body),
        );
        current = { from: i, at: now(), lookup };
      }
      return current.lookup;
    };
  }

  return { admitted, sharedLookups };
}
