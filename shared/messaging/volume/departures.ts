import type { SendLookup } from '../conversation.ts';
import { type DepartureGate, LateDepartureError } from '../providers.ts';
import type { DeferredMessage } from './deferred.ts';
import { type ChannelPacer, DEPARTURE_TOLERANCE_MS, SLOTS_PER_RUN, type SlotAnswer } from './pace.ts';

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
/** An admission the store did not answer is asked again this soon. */
const ADMIT_RETRY_MS = 50;
/** A slot store that has not answered for this long fails the send's departure (its claim and charge given back). */
const ADMIT_GIVE_UP_MS = 10_000;

/** A send found late at its slot's stamp every time it took it (asked as it left): it gives its turn back. */
function lateDeparture(lateMs: number): LateDepartureError {
  return new LateDepartureError(
    `the send was ${lateMs} ms past its slot's stamp after ${MAX_RETAKES} retakes: its turn is given back`,
  );
}

/** What a worker saw of one channel's slots, by slot number. */
interface SlotMemory {
  /** When each slot was last seen taken (its last stamp). */
  seen: Map<number, number>;
  /** The stamps of this worker's writes not answered yet. */
  inFlight: Map<number, number>;
}

/** A send waiting for its slot's write (`takeSlot`). */
interface Asking {
  slot: number;
  /** When it departs, read when its write is made. */
  departAt: () => number;
  mine?: number;
  settle: (taken: Promise<{ answer: SlotAnswer; stamp: number }>) => void;
  /** Still in its channel's list, its write not made: read on every wake and plan, where a search of the list was. */
  waiting: boolean;
}

/** A worker's slots and reads for its sends, kept across its batches (what it saw of the slots, how its answers come). */
export function makeDepartures(
  deps: {
    pacer: Pick<ChannelPacer, 'admit'>;
    lookup?: (projectId: string, channelId: string, bodies: readonly unknown[]) => Promise<SendLookup | undefined>;
  },
  now: () => number,
  sleep: (ms: number) => Promise<void>,
) {
  /**
   * What this worker saw of each channel's slots (by slot number): when each was last seen taken, and the stamps of
   * its own writes not answered yet. Kept for the channels of recent sends only, the least recently used forgotten
   * first once they hold more than {@link SLOTS_REMEMBERED} slots (a forgotten slot costs a refused write at most).
   * Per channel, by number: a send looks at up to a run of slots, and a string key built for each cost 0.3 ms of CPU
   * a message sent (3 % of the whole service's, bench/volume.ts --profile).
   */
  const channels = new Map<string, SlotMemory>();
  let remembered = 0;
  function memoryOf(channelId: string): SlotMemory {
    let memory = channels.get(channelId);
    if (memory) channels.delete(channelId);
    else memory = { seen: new Map(), inFlight: new Map() };
    channels.set(channelId, memory);
    forgetOldest(memory);
    return memory;
  }
  function forgetOldest(kept: SlotMemory): void {
    for (const [channelId, oldest] of channels) {
      if ((remembered <= SLOTS_REMEMBERED && channels.size <= SLOTS_REMEMBERED) || oldest === kept) return;
      remembered -= oldest.seen.size;
      channels.delete(channelId);
    }
  }
  function remember(channelId: string, slot: number, at: number): void {
    // Looked up again (not held across a wait): a channel forgotten meanwhile is counted afresh.
    const memory = memoryOf(channelId);
    // A slot's stamps only move on: an answer that reached the store before a later write does not take it back.
    const known = memory.seen.get(slot);
    if (known === undefined) remembered++;
    memory.seen.set(slot, Math.max(at, known ?? 0));
    forgetOldest(memory);
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
      Math.max(departAt(), ...before.filter((a) => a.waiting).map((a) => a.departAt() + windowMs));
    const mineAsking: Asking = {
      slot,
      departAt: departure,
      ...(mine === undefined ? {} : { mine }),
      settle,
      waiting: true,
    };
    const list = asking.get(key);
    if (list) list.push(mineAsking);
    else asking.set(key, [mineAsking]);
    for (;;) {
      const wake = departure() - aheadMs();
      if (wake <= now()) break;
      await sleep(wake - now());
      if (!mineAsking.waiting) return taken;
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
    for (const b of batch) b.asking.waiting = false;
    const rest = waiting.filter((w) => w.waiting);
    if (rest.length) asking.set(key, rest);
    else asking.delete(key);
    const stamps = batch.map((b) => Math.max(b.departAt, asked + ahead));
    // What the slots will hold if this write is let through: a send asking meanwhile does not ask before they free.
    const memory = memoryOf(channelId);
    for (const [j, { asking: b }] of batch.entries()) memory.inFlight.set(b.slot, stamps[j]!);
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
      for (const [j, { asking: b }] of batch.entries())
        if (memory.inFlight.get(b.slot) === stamps[j]) memory.inFlight.delete(b.slot);
    };
    void answers.then((answered) => {
      noteAnswer(now() - asked);
      settled();
      // Every slot the write saw, as other workers left them: none is asked before it frees.
      for (const [slot, stamp] of answered.stamps) remember(channelId, slot, stamp);
    }, settled);
    for (const [j, { asking: b }] of batch.entries())
      b.settle(answers.then((all) => ({ answer: all.answers[j]!, stamp: stamps[j]! })));
    return taken;
  }

  /** When this worker last saw `slot` free for a send: its last stamp (or its write under way) and a window. */
  function freesAt(memory: SlotMemory, slot: number, windowMs: number): number {
    return Math.max(memory.seen.get(slot) ?? 0, memory.inFlight.get(slot) ?? 0) + windowMs;
  }

  /**
   * The slot a send asks for: of the run of slots its own belongs to (written together, {@link SLOTS_PER_RUN}), the
   * one free soonest for a departure at `at`, as this worker saw them and its other sends will leave them; its own
   * unless another frees earlier. A slot that a late send took again, or that a stalled event loop left behind, then
   * holds back only the sends that find no earlier one, instead of every later send named after it (a drain's last
   * seconds waited for its most delayed slot).
   */
  function soonestFree(channelId: string, windowMs: number, own: number, slots: number, at: number): number {
    const first = own - (own % SLOTS_PER_RUN);
    const end = Math.min(slots, first + SLOTS_PER_RUN);
    // This worker's sends waiting for a slot of the run leave it free a window after their departures (a send taking
    // its slot again departs as far ahead as answers take). Only the own slot's are read while it is free in time:
    // reading every waiting send's departure for every send cost as much as the rest of the worker's pace.
    const waiting = (asking.get(`${channelId}#${windowMs}`) ?? []).filter((a) => a.slot >= first && a.slot < end);
    const frees = (a: Asking) => (a.mine === undefined ? a.departAt() : now() + aheadMs()) + windowMs;
    let asked: Map<number, number> | undefined;
    const askedAt = (slot: number) => {
      if (!asked && slot === own) return Math.max(0, ...waiting.filter((a) => a.slot === own).map(frees));
      if (!asked) {
        asked = new Map();
        for (const a of waiting) asked.set(a.slot, Math.max(asked.get(a.slot) ?? 0, frees(a)));
      }
      return asked.get(slot) ?? 0;
    };
    const memory = memoryOf(channelId);
    const freeAt = (slot: number) => Math.max(at, freesAt(memory, slot, windowMs), askedAt(slot));
    let best = own;
    let bestAt = freeAt(own);
    for (let slot = first; slot < end && bestAt > at; slot++) {
      const slotAt = freeAt(slot);
      if (slotAt < bestAt) {
        best = slot;
        bestAt = slotAt;
      }
    }
    return best;
  }

  /**
   * Waits until the slot lets the send through, as the last step before the provider call: the slot is asked for a
   * departure at `at` (or when this worker saw the slot free, if later) as far ahead as its answers take, and the
   * send leaves at that stamp. The answer is the gate the provider asks as the request leaves (providers.ts): a send
   * more than {@link DEPARTURE_TOLERANCE_MS} past its stamp then (an answer later than usual, a stalled event loop,
   * anything between the slot and the bytes) never leaves late: it moves its own stamp to a new departure, further
   * ahead as the late answer raised the average, and leaves as soon as the move is answered unless it was a window or
   * more late (three times at most, then it gives its turn back). Two sends through one slot thus leave at least
   * `windowMs - DEPARTURE_TOLERANCE_MS` (the pace's window) apart, however loaded the service. A store that does not
   * answer is asked again shortly.
   */
  async function admitted(
    channelId: string,
    own: number,
    slots: number,
    windowMs: number,
    at: number,
  ): Promise<DepartureGate> {
    let slot = own;
    let mine: number | undefined;
    let stamp = 0;
    let retakes = 0;
    let failingSince: number | undefined;
    const take = async (): Promise<void> => {
      for (;;) {
        // A retake keeps its slot (its own stamp lets it move it); otherwise the slot that frees soonest is asked for.
        if (mine === undefined) slot = soonestFree(channelId, windowMs, own, slots, at);
        // A slot this worker saw taken is not asked before it frees: a refusal costs a write.
        const taken = mine;
        const memory = memoryOf(channelId);
        const departAt = () => (taken === undefined ? Math.max(at, freesAt(memory, slot, windowMs)) : 0);
        const asked = now();
        let failed = false;
        const took = await takeSlot(channelId, windowMs, slot, departAt, mine).catch((error) => {
          // A store that stops answering: the claimed message is given back (and its charge) rather than held.
          failed = true;
          failingSince ??= asked;
          if (now() - failingSince > ADMIT_GIVE_UP_MS) throw error;
          return { answer: { retryAt: now() + ADMIT_RETRY_MS }, stamp: 0 };
        });
        const { answer } = took;
        if (!failed) failingSince = undefined;
        if (answer === true) {
          stamp = took.stamp;
          remember(channelId, slot, stamp);
          // A retake leaves as soon as its write is answered, before its new stamp, when the write can only have been
          // let through because the slot still held this send's stamp: its last departure was then a window before
          // that stamp (which the send is past), and its next can be no earlier than a window after the new one. Only
          // the write's own answer comes between the retake and the bytes: an event loop whose timers all fire late
          // (a throttled CPU, a busy thread) does not make the retake late again. A slot another send took since has
          // a stamp at least a window after this send's, and lets the retake through as free only if the new stamp is
          // a window after that: so a new stamp under two windows after the held one is a slot still held. Further
          // (a send a window or more late: a second at a pace of one a second or more), the retake waits for its
          // stamp, as a first take does.
          if (taken !== undefined && stamp < taken + 2 * windowMs) return;
          // A timer may fire a millisecond before the wall clock reaches its stamp: a send never leaves before it.
          // Whether it is still on time is the gate's to say, asked as the request leaves.
          while (stamp > now()) await sleep(stamp - now());
          return;
        }
        if (failed) await sleep(Math.max(1, answer.retryAt - now()));
        else {
          // Taken by another send (this one's stamp, if it had one, is gone with it): asked again when it frees.
          remember(channelId, slot, answer.retryAt - windowMs);
          mine = undefined;
        }
      }
    };
    await take();
    return {
      onTime: () => now() - stamp <= DEPARTURE_TOLERANCE_MS,
      // A send late at its stamp keeps its slot (its own stamp lets it move it) and asks for a new departure.
      again: async () => {
        if (retakes >= MAX_RETAKES) throw lateDeparture(now() - stamp);
        mine = stamp;
        retakes++;
        await take();
      },
    };
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

  return { admitted, sharedLookups, aheadMs };
}
