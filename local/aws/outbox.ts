import type { DatabaseSync } from 'node:sqlite';
import { arnResource } from './wire.ts';

/**
 * What one stand-in sends another, as the AWS service would: an SES event to an SNS topic or an event bus, an event
 * bus's event to a rule's target (an SQS queue, an SNS topic, another bus).
 */
export type Delivery =
  | { kind: 'sqs'; queueArn: string; body: string; messageGroupId?: string; deduplicationId?: string }
  | { kind: 'sns'; topicArn: string; message: string }
  | { kind: 'events'; busArn: string; source: string; detailType: string; detail: string; resources: string[] };

/** Where the deliveries go: the stand-ins' endpoints. */
export interface OutboxEndpoints {
  /** SQS and SNS (fauxqs). */
  queuesAndTopics: string;
  eventBridge: string;
}

export interface Outbox {
  /** Records a delivery due at `dueAt` (ms); call inside the transaction that accepted what it delivers. */
  add(delivery: Delivery, dueAt?: number): void;
  /** Sends what is due (also what a previous run left unsent) and keeps doing so; call once the endpoints are up. */
  start(endpoints: OutboxEndpoints): void;
  stop(): void;
}

/** AWS services retry a delivery to a target for 24 hours before they drop it. */
const GIVE_UP_AFTER_MS = 24 * 3600_000;

/**
 * An outbox in the stand-ins' database: a delivery is written in the same transaction as the call that caused it
 * (an accepted SendEmail, PutEvents), then sent in due order, one at a time, over the receiving service's own wire
 * protocol. A refusal (the queue or topic does not exist: 4xx) drops it, as AWS drops an event whose target is gone;
 * anything else is retried with backoff for 24 hours. A process killed before a delivery is sent sends it on restart.
 */
export function createOutbox(db: DatabaseSync, onDropped: (delivery: Delivery, reason: string) => void): Outbox {
  db.exec(`CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT, delivery TEXT NOT NULL, due_at INTEGER NOT NULL, first_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0)`);
  const insert = db.prepare('INSERT INTO outbox (delivery, due_at, first_at) VALUES (?, ?, ?)');
  const next = db.prepare('SELECT id, delivery, due_at, first_at, attempts FROM outbox ORDER BY due_at, id LIMIT 1');
  const remove = db.prepare('DELETE FROM outbox WHERE id = ?');
  const retry = db.prepare('UPDATE outbox SET attempts = attempts + 1, due_at = ? WHERE id = ?');
  let endpoints: OutboxEndpoints | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = false;
  const queueUrls = new Map<string, string>();

  const wake = (delayMs = 0) => {
    if (!endpoints || stopped || running) return;
    clearTimeout(timer);
    timer = setTimeout(
      () => void drain().catch((error: unknown) => console.error('[local aws outbox]', error)),
      Math.max(0, delayMs),
    );
    timer.unref();
  };

  async function drain(): Promise<void> {
    running = true;
    try {
      for (;;) {
        if (stopped) return;
        const row = next.get() as
          | { id: number; delivery: string; due_at: number; first_at: number; attempts: number }
          | undefined;
        if (!row) return;
        if (row.due_at > Date.now()) {
          running = false;
          return wake(row.due_at - Date.now());
        }
        const delivery = JSON.parse(row.delivery) as Delivery;
        const outcome = await send(delivery, endpoints!, queueUrls).catch((error: unknown) => ({
          retry: String(error),
        }));
        if (stopped) return;
        if ('retry' in outcome && Date.now() - row.first_at < GIVE_UP_AFTER_MS) {
          retry.run(Date.now() + Math.min(60_000, 500 * 2 ** row.attempts), row.id);
          continue;
        }
        remove.run(row.id);
        if ('retry' in outcome) onDropped(delivery, `gave up after 24 hours: ${outcome.retry}`);
        else if ('refused' in outcome) onDropped(delivery, outcome.refused);
      }
    } finally {
      running = false;
    }
  }

  return {
    add(delivery, dueAt = Date.now()) {
      insert.run(JSON.stringify(delivery), dueAt, Date.now());
      queueMicrotask(() => wake(dueAt - Date.now()));
    },
    start(at) {
      endpoints = at;
      wake();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

type Outcome = { sent: true } | { refused: string } | { retry: string };

/** Signed as the AWS service that sends (its principal as the access key), for the stand-ins that record callers. */
const SIGNED = (service: string, principal = 'events.amazonaws.com') => ({
  authorization: `AWS4-HMAC-SHA256 Credential=${principal}/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`,
});

async function send(delivery: Delivery, at: OutboxEndpoints, queueUrls: Map<string, string>): Promise<Outcome> {
  if (delivery.kind === 'sns') {
    const form = new URLSearchParams({
      Action: 'Publish',
      Version: '2010-03-31',
      TopicArn: delivery.topicArn,
      Message: delivery.message,
    });
    return outcome(
      await fetch(at.queuesAndTopics, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...SIGNED('sns') },
        body: form.toString(),
      }),
    );
  }
  if (delivery.kind === 'events') {
    return outcome(
      await fetch(at.eventBridge, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.1',
          'x-amz-target': 'AWSEvents.PutEvents',
          ...SIGNED(
            'events',
            delivery.source.startsWith('aws.') ? `${delivery.source.slice(4)}.amazonaws.com` : undefined,
          ),
        },
        body: JSON.stringify({
          Entries: [
            {
              EventBusName: delivery.busArn,
              Source: delivery.source,
              DetailType: delivery.detailType,
              Detail: delivery.detail,
              Resources: delivery.resources,
            },
          ],
        }),
      }),
      (body) => ((body as { FailedEntryCount?: number }).FailedEntryCount ? JSON.stringify(body) : undefined),
    );
  }
  const sqs = (operation: string, input: unknown) =>
    fetch(at.queuesAndTopics, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `AmazonSQS.${operation}`,
        ...SIGNED('sqs'),
      },
      body: JSON.stringify(input),
    });
  let queueUrl = queueUrls.get(delivery.queueArn);
  if (!queueUrl) {
    const response = await sqs('GetQueueUrl', {
      QueueName: arnResource(delivery.queueArn, 'sqs') ?? delivery.queueArn,
    });
    const found = await outcome(response.clone());
    if (!('sent' in found)) return found;
    queueUrl = ((await response.json()) as { QueueUrl: string }).QueueUrl;
    queueUrls.set(delivery.queueArn, queueUrl);
  }
  return outcome(
    await sqs('SendMessage', {
      QueueUrl: queueUrl,
      MessageBody: delivery.body,
      ...(delivery.messageGroupId ? { MessageGroupId: delivery.messageGroupId } : {}),
      ...(delivery.deduplicationId ? { MessageDeduplicationId: delivery.deduplicationId } : {}),
    }),
  );
}

async function outcome(response: Response, failed?: (body: unknown) => string | undefined): Promise<Outcome> {
  const text = await response.text();
  if (response.status >= 500) return { retry: `${response.status} ${text.slice(0, 300)}` };
  if (response.status >= 400) return { refused: `${response.status} ${text.slice(0, 300)}` };
  const failure = failed?.(JSON.parse(text));
  return failure ? { refused: failure } : { sent: true };
}
