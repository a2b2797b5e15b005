/** What the crash ledger's senders share: what was acknowledged so far, and whether the run is stopping. */
import type { OrderedInput } from '../lib/order-ledger.ts';
import type { Expected } from './types.ts';

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
