import type { ChannelType } from '../channel.ts';
import * as z from '../../kernel/validation/zod.ts';

/**
 * How fast batch items and scheduled sends leave a channel: WhatsApp Cloud takes 80 messages a second per number,
 * an SMS long code about 10, SES 14 by default. A single synchronous send is not paced (its caller waits for it).
 */
export const DEFAULT_PACE: Record<ChannelType, number> = { whatsapp: 80, sms: 10, email: 14 };
/**
 * The highest pace a channel may ask: its pace item takes one write per group of sends a worker takes (up to 10), and
 * so does each run of its slots that a group's sends take (dynamo-channel-pacer.ts: 40 slots an item, each slot
 * written at most once a second).
 */
export const MAX_PACE_PER_SECOND = 500;

export const paceSchema = z.strictObject({
  perSecond: z.number().check(z.positive(), z.lte(MAX_PACE_PER_SECOND)),
});
export type Pace = z.infer<typeof paceSchema>;

export function paceOf(channel: { type: ChannelType; pace?: Pace }): Pace {
  return channel.pace ?? { perSecond: DEFAULT_PACE[channel.type] };
}

/**
 * How late after its slot's stamp a send may still leave on it (later, it takes its slot again). A slot's stamps are
 * this much more than the pace's window apart, so two departures through one slot are always a whole window apart:
 * however the stamps bunch (after a stalled event loop, many sends take their slots at once), a sliding second never
 * holds more than the pace. The cost is this fraction of the pace (10 ms: 1 %), and sends woken later than this
 * take their slot again (a write); a send whose slot is asked for in time (work-outbound.ts) wakes within it nearly
 * always on a service that is not saturated.
 */
export const DEPARTURE_TOLERANCE_MS = 10;

/**
 * A channel's pace as `slots` tokens, each letting one send through at most once every `admitWindowMs` (the pace's
 * window and {@link DEPARTURE_TOLERANCE_MS}, {@link ChannelPacer.admit}): a window of a second can then never hold
 * more than `perSecond` departures, whatever order and lateness they come in, since it holds at most one use of each
 * slot. A sliding second holds a whole number of sends, so 2.5 a second is 2 slots a second; below one a second, one
 * slot every `1000 / perSecond` ms. Sends are planned `spacingMs` apart (their reserved instants).
 */
export function paceSlots(perSecond: number): {
  slots: number;
  windowMs: number;
  spacingMs: number;
  admitWindowMs: number;
} {
  const slots = Math.max(1, Math.floor(perSecond));
  const admitWindowMs = Math.max(1000, (slots * 1000) / perSecond) + DEPARTURE_TOLERANCE_MS;
  const windowMs = admitWindowMs * PLAN_MARGIN;
  return { slots, windowMs, spacingMs: windowMs / slots, admitWindowMs };
}

/**
 * Sends are planned 0.5 % further apart (`windowMs`) than a slot lets them through (`admitWindowMs`): a send that
 * took its slot a little late (its claim, a busy event loop) does not make the slot's next send wait and ask again,
 * and such a delay is gone within a few rounds. With the tolerance, a drain takes about 1.5 % longer than the pace.
 */
const PLAN_MARGIN = 1.005;

/**
 * A channel's slots are kept in runs of this many (dynamo-channel-pacer.ts: one item each): the sends of a run ask in
 * one write, so a send that may take another slot than its own looks for it within its own's run.
 */
export const SLOTS_PER_RUN = 40;

/** One send's request for its slot ({@link ChannelPacer.admit}). */
export interface SlotRequest {
  slot: number;
  /** The instant the send departs at: the slot's new stamp. */
  at: number;
  /**
   * The stamp this same send took the slot at before and did not leave on: the slot is still its own while it holds
   * that stamp, and moves to `at`.
   */
  mine?: number;
}

/** Let through, or when the slot frees (its last send's stamp and a window). */
export type SlotAnswer = true | { retryAt: number };

/**
 * The shared schedule of one channel's sends: the next free instant and the count of sends planned (one item per
 * channel, written once per group of sends a worker takes, never once per send), and the channel's slots.
 */
export interface ChannelPacer {
  /**
   * Reserves `count` consecutive instants `spacingMs` apart, the first no earlier than `now` and after the channel's
   * last reservation, with their sequence numbers; answers the first of each, or `{ later }` without reserving when
   * that first instant is more than `horizonMs` away. Atomic across every worker.
   */
  reserve(
    channelId: string,
    count: number,
    spacingMs: number,
    now: number,
    horizonMs: number,
  ): Promise<{ at: number; seq: number } | { later: number }>;
  /**
   * Lets each request's send through its slot at its `at` when that slot's last send is at least `windowMs` earlier
   * (or none), recording it; otherwise answers when the slot will be free. Sends a worker takes together ask in one
   * call (one write for the slots kept in one item), each answered on its own. A send uses the slot its sequence
   * number names (modulo the slots), so a late send delays only the one a full window after it, never every one
   * behind it. No slot may be named twice in one call. `stamps`: the last stamp of every slot the call saw (those
   * kept in the items it wrote, as it left them), so that a worker does not ask for a slot another one moved.
   */
  admit(
    channelId: string,
    windowMs: number,
    requests: readonly SlotRequest[],
  ): Promise<{ answers: SlotAnswer[]; stamps: Map<number, number> }>;
  /**
   * Where `count` sends queued now stand in the channel's queue (`spacingMs` apart, behind those queued before and
   * not yet due): the instant the first of them is due, and the queue's end moved past the last. A hint for when to
   * make their jobs visible, never a permission (the reservation and the slots are).
   */
  plan(channelId: string, count: number, spacingMs: number, now: number): Promise<number>;
}
