/**
 * Ports of the webhook area: what the publisher, fan-out and delivery use cases need from the outside world.
 * Adapters live in `adapters/`; unit tests use in-memory fakes. The events queue and the payload store are the
 * event vocabulary's (`shared/events`).
 */
import type { WebhookTarget } from '../integrations/index.ts';
import type { DeliveryAttempt, DeliveryJob, DeliveryRecord, DeliveryStatus } from './model.ts';
import type { Page, PageRequest } from '../kernel/page.ts';
import type { OutboxMark } from '../events/index.ts';

export type { EventQueue, PayloadStore } from '../events/index.ts';
export type { AttemptOutcome, WebhookRequest, WebhookSender } from './sender.ts';

/** A job to enqueue, optionally delayed (at most 900 s, SQS's limit). */
export interface QueuedJob {
  job: DeliveryJob;
  delaySeconds?: number;
}

/** A received message to make visible again later; `ordered`: it came from the FIFO queue of ordered webhooks. */
export interface PostponedMessage {
  receiptHandle: string;
  seconds: number;
  ordered?: boolean;
}

/** The deliveries queues: `deliveries`, and the FIFO one for ordered webhooks (`job.ordered`). */
export interface DeliveryQueue {
  /**
   * Enqueues jobs (batched by the adapter; an ordered job in its webhook and conversation's group, after the earlier
   * ones of that group in the call); resolves with the indexes of the jobs that could not be enqueued.
   */
  enqueue(jobs: QueuedJob[]): Promise<Set<number>>;
  /**
   * Makes received messages visible again after `seconds` (at most 12 h): the retry of a failed attempt waits in
   * the queue, not in a worker. Resolves with the indexes that could not be postponed.
   */
  postpone(items: PostponedMessage[]): Promise<Set<number>>;
}

/** The webhook records of the integrations store that the workers read, and the one write they make. */
export interface WebhookDirectory {
  /** The project's webhooks with their live signing secrets: one Query. */
  listWebhooks(projectId: string): Promise<WebhookTarget[]>;
  getWebhook(projectId: string, integrationId: string): Promise<WebhookTarget | undefined>;
  /**
   * Disables an enabled webhook with a reason, writing `mark` (its `webhook.disabled` event) in the same conditional
   * write; false when it was already disabled or does not exist (nothing written, nothing to publish).
   */
  disableWebhook(projectId: string, integrationId: string, reason: string, mark?: OutboxMark): Promise<boolean>;
  /** Clears a published mark the disabling wrote. */
  clearDisabledMark(projectId: string, integrationId: string, eventId: string): Promise<void>;
}

/** What one attempt writes on its delivery record (one item write). */
export interface AttemptWrite {
  projectId: string;
  integrationId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: DeliveryAttempt;
  status: DeliveryStatus;
  /** Epoch ms of the next automatic attempt (status pending). */
  nextAttemptAt?: number;
  /**
   * Stored with the first attempt so it can be retried by hand: a small body itself, or a large one's S3 key (a body
   * in between is stored once per event by the fan-out).
   */
  body?: string;
  bodyRef?: string;
  /** The event's ordering key, stored with the first attempt (manual retries of an ordered webhook queue by it). */
  orderKey?: string;
  /** Manual attempts may overwrite a `succeeded` record; automatic ones never do (a late duplicate). */
  manual: boolean;
  /**
   * The delivery's first automatic attempt: no record exists yet, unless a duplicate job of the same delivery made
   * one (the fan-out run again after a crash, a duplicate SQS message).
   */
  first?: boolean;
}

/**
 * Event bodies stored once per event for all its webhooks, by the fan-out before it queues the jobs (the jobs carry
 * the body themselves): what a retry by hand and `recover` send again. A small body stays in each record instead, and
 * one parked in the payload store (over 200 KB) is not stored here: its records keep its key.
 */
export interface EventBodies {
  put(eventId: string, body: string): Promise<void>;
  /** The bodies still stored, by event id (one past its retention is absent). */
  get(eventIds: readonly string[]): Promise<Map<string, string>>;
}

/** Delivery records: one item per (event, webhook), attempts appended. */
export interface DeliveryStore {
  /** Appends an attempt and sets the status; false when an automatic attempt finds the delivery already succeeded. */
  recordAttempt(write: AttemptWrite): Promise<boolean>;
  get(projectId: string, integrationId: string, deliveryId: string): Promise<DeliveryRecord | undefined>;
  /** Newest first. `cursor` continues a previous page. */
  list(
    projectId: string,
    integrationId: string,
    options: { status?: DeliveryStatus } & PageRequest,
  ): Promise<Page<DeliveryRecord>>;
  /**
   * Marks a delivery pending for a manual retry already queued, unless its attempt ran meanwhile (it has more than
   * `attemptsSeen` attempts): true when marked.
   */
  markRetrying(projectId: string, integrationId: string, deliveryId: string, attemptsSeen: number): Promise<boolean>;
}

/** A deliver batch's attempts to one webhook, folded in the order they ended. */
export interface HealthFold {
  /** The last success of the batch (epoch ms): the streak before it is over. */
  lastSuccessAt?: number;
  /** Failed attempts after the last success (all of them without one). */
  failuresAfter: number;
  /** When the first of those failed (epoch ms). */
  firstFailureAt?: number;
}

/** A webhook's failing streak after a fold. */
export interface WebhookHealthState {
  /** Failed attempts in a row (0: not failing). */
  consecutiveFailures: number;
  /** When the streak began (epoch ms); null when not failing. */
  failingSince: number | null;
  /** Whether this streak's `webhook.failing` notice was written. */
  noticed: boolean;
}

/**
 * A webhook's failing streak: failed attempts in a row and since when, so that one failing
 * for 5 days is disabled and one failing `WEBHOOK_FAILING_AFTER` times in a row is noticed once.
 */
export interface WebhookHealthStore {
  /** Applies a batch's attempts to one webhook (one UpdateItem) and returns the streak after them. */
  fold(projectId: string, integrationId: string, fold: HealthFold, at: number): Promise<WebhookHealthState>;
  /**
   * Records this streak's `webhook.failing` notice with its outbox mark, once per streak: false when the streak was
   * already noticed, or has ended, or is shorter than `atLeast`.
   */
  markFailingNotice(
    projectId: string,
    integrationId: string,
    atLeast: number,
    mark: OutboxMark,
    at: number,
  ): Promise<boolean>;
  /** Clears a published notice mark. */
  clearMark(projectId: string, integrationId: string, eventId: string): Promise<void>;
}
