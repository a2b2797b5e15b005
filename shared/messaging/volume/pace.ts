import type { ChannelType } from '../channel.ts';
import * as z from '../../kernel/validation/zod.ts';

/**
 * How fast batch items and scheduled sends leave a channel: WhatsApp Cloud takes 80 messages a second per number,
 * an SMS long code about 10, SES 14 by default. A single synchronous send is not paced (its caller waits for it).
 */
export const DEFAULT_PACE: Record<ChannelType, number> = { whatsapp: 80, sms: 10, email: 14 };
/**
 * The highest pace a channel may ask: its one pace item takes about 1,000 writes a second, and each send writes it
 * once (its admission) besides its group's reservation.
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
 * Spacing between two sends of a channel. Sends leave at reserved instants `spacing` apart, so no sliding second
 * holds more than `perSecond` of them; 2 % more than 1000 / perSecond absorbs a send that leaves a little late (the
 * timer, the way to the provider).
 */
export function paceSpacingMs(perSecond: number): number {
  return (1000 / perSecond) * 1.02;
}

/**
 * The shared schedule of one channel's sends (its token bucket, kept as the next free instant): one item per
 * channel, written once per group of sends a worker takes, never once per send.
 */
export interface ChannelPacer {
  /**
   * Reserves `count` consecutive instants `spacingMs` apart, the first no earlier than `now` and after the channel's
   * last reservation, and returns the first (epoch ms); or `{ later }` without reserving when that first instant is
   * more than `horizonMs` away. Atomic across every worker.
   */
  reserve(
    channelId: string,
    count: number,
    spacingMs: number,
    now: number,
    horizonMs: number,
  ): Promise<number | { later: number }>;
  /**
   * Lets one send through at `now` when the channel's last one let through is at least `spacingMs` earlier (or
   * none), recording it; false otherwise. Reservations order the sends; this makes a send that woke late unable to
   * crowd the next: no second ever holds more than `perSecond`, however late a worker's timer fires.
   */
  admit(channelId: string, spacingMs: number, now: number): Promise<boolean>;
}
