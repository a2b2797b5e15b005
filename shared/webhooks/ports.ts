/**
 * Ports of the webhook area: what the publisher, fan-out and delivery use cases need from the outside world.
 * Adapters live in `adapters/`; unit tests use in-memory fakes. The events queue and the payload store are the
 * event vocabulary's (`shared/events`).
 */
import type { WebhookTarget } from '../integrations/index.ts';
import type { DeliveryAttempt, DeliveryJob, DeliveryRecord, DeliveryStatus } from './model.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

export type { EventQueue, PayloadStore } from '../events/index.ts';
export type { AttemptOutcome, WebhookRequest, WebhookSender } from './sender.ts';

/** A job to enqueue, optionally delayed (at most 900 s, SQS's limit). */
export interface QueuedJob {
  job: DeliveryJob;
  delaySeconds?: number;
}

/** The `deliveries` queue. */
export interface DeliveryQueue {
  /** Enqueues jobs (batched by the adapter); resolves with the indexes of the jobs that could not be enqueued. */
  enqueue(jobs: QueuedJob[]): Promise<Set<number>>;
  /**
   * Makes received messages visible again after `seconds` (at most 12 h): the retry of a failed attempt waits in
   * the queue, not in a worker. Resolves with the indexes that could not be postponed.
   */
  postpone(items: { receiptHandle: string; seconds: number }[]): Promise<Set<number>>;
}

/** The webhook records of the integrations store (issue 3) that the workers read, and the one write they make. */
export interface WebhookDirectory {
  /** The project's webhooks with their live signing secrets: one Query. */
  listWebhooks(projectId: string): Promise<WebhookTarget[]>;
  getWebhook(projectId: string, integrationId: string): Promise<WebhookTarget | undefined>;
  disableWebhook(projectId: string, integrationId: string, reason: string): Promise<boolean>;
}

/** What one attempt writes on its delivery record (one UpdateItem). */
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
  /** The signed body (or its S3 key when large), stored with the first attempt so it can be retried by hand. */
  body?: string;
  bodyRef?: string;
  /** Manual attempts may overwrite a `succeeded` record; automatic ones never do (a late duplicate). */
  manual: boolean;
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

/**
 * Whether a webhook has been failing, kept per webhook so that one failing for 5 days in a row is disabled.
 * Written only when the state changes (first failure, first success after failures).
 */
export interface WebhookHealthStore {
  /** Records a failure; returns since when the webhook has been failing (epoch ms), this failure included. */
  recordFailure(projectId: string, integrationId: string, at: number): Promise<number>;
  /** Records a success: the webhook is no longer failing. */
  recordSuccess(projectId: string, integrationId: string, at: number): Promise<void>;
}
