import type { ChannelType } from '../channel.ts';
import * as z from '../../kernel/validation/zod.ts';

/**
 * How fast batch items and scheduled sends leave a channel: WhatsApp Cloud takes 80 messages a second per number,
 * an SMS long code about 10, SES 14 by default. A single synchronous send is not paced (its caller waits for it).
 */
export const DEFAULT_PACE: Record<ChannelType, number> = { whatsapp: 80, sms: 10, email: 14 };
/**
 * The highest pace a channel may ask: its pace item takes one write per group of sends a worker takes (up to 10), and
 * each send writes one of its slots (each slot its own partition, written at most once a second).
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
 * A channel's pace as `slots` tokens, each letting one send through at most once every `windowMs`
 * ({@link ChannelPacer.admit}). A send leaves within {@link SEND_ALLOWANCE_MS} of its slot's stamp (a sender slower
 * than that stamps its slot again before it calls the provider: work-outbound.ts), and the window is that allowance
 * longer than a second: two sends through one slot are then at least a second apart where they leave the service, so
 * a sliding second never holds more than `slots` sends, whatever order and lateness they come in. A sliding second
 * holds a whole number of sends, so 2.5 a second is 2 slots a second; below one a second, one slot every
 * `1000 / perSecond` ms. Sends are planned `spacingMs` apart (their reserved instants), exactly the rate the slots
 * allow.
 */
export function paceSlots(perSecond: number): { slots: number; windowMs: number; spacingMs: number } {
  const slots = Math.max(1, Math.floor(perSecond));
  const windowMs = Math.max(1000, (slots * 1000) / perSecond) + SEND_ALLOWANCE_MS;
  return { slots, windowMs, spacingMs: windowMs / slots };
}

/**
 * How long after its slot's stamp a send may still leave. The pace is a promise to the provider (WhatsApp refuses
 * past 80 a second), so it is kept where the request leaves, not only where the slot was taken: between the two come
 * the claim on the message and the charge, which a busy worker can delay by hundreds of milliseconds, and a slot taken
 * a second after a late one's stamp would then let two sends leave within one second. 30 ms costs 3 % of the pace
 * (a window of 1,030 ms for a second's sends) and holds the claim and the charge of a worker that is not overloaded.
 */
export const SEND_ALLOWANCE_MS = 30;

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
   * Lets one send through `slot` at `now` when that slot's last send is at least `windowMs` earlier (or none),
   * recording it; otherwise answers when it will be free. A send uses the slot its sequence number names (modulo the
   * slots), so a late send delays only the one a full window after it, never every one behind it.
   */
  admit(channelId: string, slot: number, windowMs: number, now: number): Promise<true | { retryAt: number }>;
  /**
   * Moves `slot`'s last send from `from` (the caller's own stamp) to `now`, for a send about to leave later than its
   * stamp allows; false when another send took the slot since (the caller then waits for it again).
   */
  restamp(channelId: string, slot: number, from: number, now: number): Promise<boolean>;
  /**
   * Where `count` sends queued now stand in the channel's queue (`spacingMs` apart, behind those queued before and
   * not yet due): the instant the first of them is due, and the queue's end moved past the last. A hint for when to
   * make their jobs visible, never a permission (the reservation and the slots are).
   */
  plan(channelId: string, count: number, spacingMs: number, now: number): Promise<number>;
}
