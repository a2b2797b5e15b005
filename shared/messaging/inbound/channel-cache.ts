import type { Channel } from '../channel.ts';

/**
 * Channels by id, remembered for `ttlMs` (per worker process): a burst of receipts for one channel costs one
 * GetItem, not one each. A channel deleted meanwhile still takes the reports already accepted for it for at most
 * that long. Unknown ids are not remembered.
 */
export function cacheChannels(
  channels: { findById(channelId: string): Promise<Channel | undefined> },
  ttlMs = 5_000,
  now: () => number = Date.now,
): { findById(channelId: string): Promise<Channel | undefined> } {
  const cached = new Map<string, { channel: Promise<Channel | undefined>; until: number }>();
  return {
    findById(channelId) {
      const hit = cached.get(channelId);
      if (hit && hit.until > now()) return hit.channel;
      const channel = channels.findById(channelId);
      cached.set(channelId, { channel, until: now() + ttlMs });
      // Failures and unknown ids are asked again next time.
      channel.then(
        (found) => void (found ? undefined : cached.delete(channelId)),
        () => void cached.delete(channelId),
      );
      if (cached.size > 10_000) cached.delete(cached.keys().next().value!);
      return channel;
    },
  };
}
