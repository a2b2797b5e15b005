import { recentlyRead } from '../../kernel/recently-read.ts';
import type { Channel } from '../channel.ts';

/**
 * Channels by id, remembered for `ttlMs` (per worker process): a burst of receipts for one channel costs one
 * GetItem, not one each. A channel deleted meanwhile still takes the reports already accepted for it for at most
 * that long. Unknown ids and failed reads are not remembered (shared/kernel/recently-read.ts).
 */
export function cacheChannels(
  channels: { findById(channelId: string): Promise<Channel | undefined> },
  ttlMs = 5_000,
  now: () => number = Date.now,
): { findById(channelId: string): Promise<Channel | undefined> } {
  const recent = recentlyRead<Channel>({ ttlMs, now });
  return { findById: (channelId) => recent.get(channelId, () => channels.findById(channelId)) };
}
