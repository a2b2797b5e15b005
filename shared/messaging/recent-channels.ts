import { recentlyRead } from '../kernel/recently-read.ts';
import type { Channel } from './channel.ts';

/**
 * How long an event report (`POST /projects/{p}/events`) trusts a channel it read, per function instance. Decision
 * (measured: bench/history/2026-11-webhooks-for-chat-back-ends.md): the channel read was one of the three DynamoDB calls per delivered event and the only
 * one the event does not need fresh. A channel's id, type, address and company (what the envelope carries) never
 * change, so the one thing a remembered channel can get wrong is its deletion: on AWS a report reaching another
 * instance of the admin function may still be accepted up to this long after the channel was deleted. The instance
 * that deleted it forgets it at once (`forget`), so one process (the local runner) never accepts one.
 */
export const RECENT_CHANNEL_TTL_MS = 5_000;
/** Channels remembered at most per instance; past that the oldest is dropped. */
export const RECENT_CHANNELS_MAX = 10_000;

/** Channels read by an event report, remembered for a few seconds (see {@link RECENT_CHANNEL_TTL_MS}). */
export interface RecentChannels {
  /** The channel, as read within the last {@link RECENT_CHANNEL_TTL_MS} or now; undefined when it does not exist. */
  get(projectId: string, channelId: string): Promise<Channel | undefined>;
  /** Forgets a channel at once (it was deleted here). */
  forget(projectId: string, channelId: string): void;
}

/**
 * Remembers the channels `channels.get` found, for `ttlMs` (shared/kernel/recently-read.ts: a channel not found is
 * not remembered, nor is a failed read; concurrent reports of one channel share one read).
 */
export function rememberChannels(
  channels: { get(projectId: string, channelId: string): Promise<Channel | undefined> },
  options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {},
): RecentChannels {
  const recent = recentlyRead<Channel>({
    ttlMs: options.ttlMs ?? RECENT_CHANNEL_TTL_MS,
    maxEntries: options.maxEntries ?? RECENT_CHANNELS_MAX,
    ...(options.now ? { now: options.now } : {}),
  });
  const keyOf = (projectId: string, channelId: string) => `${projectId}\u0000${channelId}`;
  return {
    get: (projectId, channelId) => recent.get(keyOf(projectId, channelId), () => channels.get(projectId, channelId)),
    forget: (projectId, channelId) => recent.forget(keyOf(projectId, channelId)),
  };
}
