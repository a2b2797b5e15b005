/**
 * The inputs the crash ledger drives, all at once: each kind has `concurrency` senders, each sender sends one input
 * at a time and sends it again until it is acknowledged (as providers and careful clients do), across kills.
 */
import type { OrderedInput } from '../lib/order-ledger.ts';
import { apiInputs } from './inputs-api.ts';
import { channelInputs } from './inputs-channels.ts';
import type { Expected, LedgerOptions } from './types.ts';
import type { World } from './world.ts';

/** What was acknowledged so far, and whether the run is stopping. */
export interface Tally {
  expected: Expected[];
  orderedInputs: OrderedInput[];
  /** Sent messages with their provider id, waiting for a status callback. */
  sentSids: { messageId: string; sid: string }[];
  stopping: boolean;
  /** A number no other input of this run has. */
  next(): number;
  /** An acknowledged input; a received message's contact and first attempt, for its place in the contact's order. */
  ack(kind: string, key: string, order?: { contact: string; sentAt: number }): void;
  /** Runs `attempt` until it is acknowledged (retrying across restarts, as a provider does), or the run ends. */
  untilAcknowledged(attempt: () => Promise<boolean>): Promise<boolean>;
}

export function newTally(): Tally {
  let seq = 0;
  const tally: Tally = {
    expected: [],
    orderedInputs: [],
    sentSids: [],
    stopping: false,
    next: () => ++seq,
    ack(kind, key, order) {
      tally.expected.push({ kind, key });
      if (order) tally.orderedInputs.push({ kind, key, ...order, ackAt: Date.now() });
    },
    async untilAcknowledged(attempt) {
      for (;;) {
        try {
          if (await attempt()) return true;
        } catch {
          // No answer: the service is down, or died mid-request. The sender tries again.
        }
        if (tally.stopping) return false;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
  return tally;
}

/** Kinds driven only when `only` names them (the SQS destination's: a second project, its own run). */
const VOLUME_KINDS = ['batch', 'scheduled', 'sqsDestination'];

/** Starts every sender; each resolves once `tally.stopping` is set and its input in hand is done. */
export function startInputs(world: World, tally: Tally, options: LedgerOptions): Promise<void>[] {
  const api = apiInputs(world, tally);
  const channels = channelInputs(world, tally);
  const drivers: Record<string, () => Promise<void>> = {
    send: api.send,
    batch: api.batch,
    scheduled: api.scheduled,
    status: channels.status,
    twilioInbound: channels.twilioInbound,
    whatsappInbound: channels.whatsappInbound,
    mail: channels.mail,
    report: api.report,
    sqsDestination: api.sqsDestination,
  };
  return (
    Object.entries(drivers)
      // Batch items and scheduled sends (a minute ahead at least) only when named: the short run of `npm test` drains
      // for less than a scheduled send waits.
      .filter(([name]) => (options.only ? options.only.includes(name) : !VOLUME_KINDS.includes(name)))
      .flatMap(([, drive]) =>
        Array.from({ length: options.concurrency }, async () => {
          while (!tally.stopping) await drive();
        }),
      )
  );
}
