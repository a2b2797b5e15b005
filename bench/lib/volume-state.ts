/**
 * What the volume bench prints when messages it sent never reached the provider double: each missing message as the
 * service holds it (`GET /api/integration/messages/{id}`: its status, error, history, claim) and what the `outbound`
 * queue and its dead-letter queue hold (visible, in flight, delayed), so a run explains its own losses.
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { deadLetterName, type QueueKey, queues } from '#shared/contract/queues.ts';
import { openLocalAws } from '#test/support/local-aws.ts';

export interface QueueState {
  visible: number;
  inFlight: number;
  delayed: number;
  dead: number;
}

/** One queue's messages by state (visible, in flight, delayed) on the service's SQS stand-in. */
export async function queueCounts(sqs: SQSClient, name: string): Promise<Omit<QueueState, 'dead'>> {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return {
    visible: Number(a.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
  };
}

/** Each of the service's queues by state, with its dead-letter queue's count. */
export async function serviceQueues(baseUrl: string): Promise<Record<QueueKey, QueueState>> {
  const { aws } = await openLocalAws(baseUrl);
  try {
    const out: Partial<Record<QueueKey, QueueState>> = {};
    for (const [key, q] of Object.entries(queues) as [QueueKey, (typeof queues)[QueueKey]][]) {
      const dead = await queueCounts(aws.sqs, deadLetterName(q));
      out[key] = { ...(await queueCounts(aws.sqs, q.localName)), dead: dead.visible + dead.inFlight + dead.delayed };
    }
    return out as Record<QueueKey, QueueState>;
  } finally {
    aws.destroy();
  }
}

/** The outbound queue's jobs by state, and its dead-letter queue's count. */
export async function outboundQueueState(baseUrl: string): Promise<QueueState> {
  return (await serviceQueues(baseUrl)).outbound;
}

/**
 * Waits (up to `capMs`) until the service's queues other than `outbound` hold nothing: the work one part left (the
 * events of 10,000 sends) would otherwise run under the next part's measurement. `outbound` is left out: part 1's
 * batches go on leaving at 1 a second per channel for the whole run. Answers what it waited and what was held.
 */
export async function settled(baseUrl: string, capMs: number): Promise<string> {
  const started = Date.now();
  const held = async () =>
    Object.entries(await serviceQueues(baseUrl))
      .filter(([key, q]) => key !== 'outbound' && q.visible + q.inFlight + q.delayed > 0)
      .map(([key, q]) => `${key} ${q.visible}/${q.inFlight}/${q.delayed}`);
  const first = await held();
  let now = first;
  while (now.length && Date.now() - started < capMs) {
    await new Promise((r) => setTimeout(r, 1000));
    now = await held();
  }
  return (
    `  before it, the service's other queues held (visible/in flight/delayed): ${first.join(', ') || 'nothing'}; ` +
    `waited ${((Date.now() - started) / 1000).toFixed(0)} s${now.length ? `, still held: ${now.join(', ')}` : ''}`
  );
}

export const describeQueue = (q: QueueState) =>
  `outbound queue: visible ${q.visible}, in flight ${q.inFlight}, delayed ${q.delayed}; dead-lettered ${q.dead}`;

/** The missing messages as the service holds them: a count by status, then up to `detail` of them in full. */
export async function missingState(
  svc: { baseUrl: string },
  token: string,
  missing: readonly { body: string; messageId: string | undefined }[],
  detail = 12,
): Promise<string[]> {
  const byStatus = new Map<string, number>();
  const lines: string[] = [];
  for (const [i, m] of missing.entries()) {
    let status = 'no message id (not accepted?)';
    let shown = '';
    if (m.messageId) {
      const res = await fetch(`${svc.baseUrl}/api/integration/messages/${m.messageId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const record = (await res.json()) as Record<string, unknown>;
      status = res.status === 200 ? String(record.status) : `HTTP ${res.status}`;
      const { payload: _p, body: _b, to: _t, ...rest } = record;
      shown = JSON.stringify(rest);
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (i < detail) lines.push(`    ${m.body} ${m.messageId ?? ''}: ${shown.slice(0, 600)}`);
  }
  return [
    `  missing ${missing.length}, by the service's status: ${[...byStatus].map(([k, n]) => `${k} ${n}`).join(', ')}`,
    ...lines,
  ];
}
