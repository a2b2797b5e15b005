/**
 * What the volume bench prints when messages it sent never reached the provider double: each missing message as the
 * service holds it (`GET /api/integration/messages/{id}`: its status, error, history, claim) and what the `outbound`
 * queue and its dead-letter queue hold (visible, in flight, delayed), so a run explains its own losses.
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { deadLetterName, queues } from '#shared/contract/queues.ts';
import { openLocalAws } from '#test/support/local-aws.ts';

export interface QueueState {
  visible: number;
  inFlight: number;
  delayed: number;
  dead: number;
}

/** The outbound queue's jobs by state, and its dead-letter queue's count. */
export async function outboundQueueState(baseUrl: string): Promise<QueueState> {
  const { aws } = await openLocalAws(baseUrl);
  try {
    const count = async (name: string) => {
      const { QueueUrl } = await aws.sqs.send(new GetQueueUrlCommand({ QueueName: name }));
      const { Attributes: a = {} } = await aws.sqs.send(
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
    };
    const main = await count(queues.outbound.localName);
    const dead = await count(deadLetterName(queues.outbound));
    return { ...main, dead: dead.visible + dead.inFlight + dead.delayed };
  } finally {
    aws.destroy();
  }
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
