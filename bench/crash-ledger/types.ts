import type { OrderRow } from '../lib/order-ledger.ts';

export interface LedgerOptions {
  kills: number;
  /** Seconds of traffic between kills (each interval is random, between half and one and a half of it). */
  secondsBetweenKills: number;
  /** Concurrent clients per kind of input. */
  concurrency: number;
  /**
   * After the last restart: how long without any new delivery, with nothing left on the service's work queues and no
   * recent event mark in its table (an event the sweep has yet to publish), before what is missing counts as lost.
   */
  drainSeconds: number;
  /**
   * Only these kinds of input (`send`, `status`, `twilioInbound`, `whatsappInbound`, `mail`, `report`,
   * `sqsDestination`, `batch`, `scheduled`).
   */
  only?: string[];
  /** Keeps the data directory, with each run's service output beside it (`service-<n>.log`), to look into a loss. */
  keep?: boolean;
  /** Settings for the service on top of the crash settings (`POWERTOOLS_LOG_LEVEL=INFO` to see every step). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface LedgerRow {
  kind: string;
  acknowledged: number;
  delivered: number;
  lost: number;
  /** Delivered only once its failed delivery was sent again by hand (all automatic attempts had failed). */
  failed: number;
  duplicatesSameId: number;
  /** One input that became two changes: sent again after its acknowledgement was lost, both copies stored. */
  resentTwice: number;
  twoIds: number;
}

export interface Ledger {
  rows: LedgerRow[];
  kills: number;
  duplicatesPerKill: number[];
  lostKeys: string[];
  /** Changes published under more than one event id, with the ids. */
  twoIdKeys: string[];
  /** Deliveries still pending (an automatic attempt to come) when the drain stopped. */
  pendingDeliveries: number;
  /** Deliveries that had used up their automatic attempts, sent again by hand. */
  failedDeliveries: number;
  /** Messages in the service's dead-letter queues when the drain stopped, by queue (only those holding any). */
  deadLetters: Record<string, number>;
  /** Batch items and scheduled sends the provider double received more than once (must be 0). */
  providerTwice: number;
  /** Deferred sends a worker was killed in the middle of: ended `failed`, never sent a second time. */
  abandoned: number;
  /** `message.received` per contact at a second webhook, with `ordering: "conversation"`. */
  order: OrderRow[];
  /** What the service runs logged at warning level or above, `[run n]` before each line: printed with a loss. */
  serviceWarnings: string[];
  /** Where each lost input stopped: the items of the service's table that mention it (./trace.ts). */
  lostTrace: string[];
  /** The run's own log (kills, restarts, the drain's waits), each line with its time: printed with a loss. */
  runLog: string[];
}

/** An input whose acknowledgement promises an event: what identifies that event once it reaches the webhook. */
export interface Expected {
  kind: string;
  /** Matches the delivered envelope. */
  key: string;
}

/** A delivered event envelope, as far as the ledger reads it. */
export interface Envelope {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Mail's row: its order is counted, but SES and SNS promise none before the mail reaches the ordered lane. */
export const MAIL_KIND = 'mail → message.received';
