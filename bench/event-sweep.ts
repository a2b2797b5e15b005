/**
 * The event sweep on a backlog: `--marks` items with an event not yet published (as a crash leaves them, spread over
 * `--conversations` conversations, so over the outbox's shards), then one sweep run with an unbounded budget,
 * against dynalite and fauxqs in a process of their own (`bench/lib/emulators-child.ts`), so this process's CPU is
 * the sweeper's alone (SDK marshalling, signing, HTTP, JSON): what a Lambda run spends. Prints the drain rate here,
 * the sweeper's CPU and AWS calls per mark, and what those make of a backlog of a million on AWS.
 *
 * Run: npx tsx bench/event-sweep.ts [--marks 100000] [--conversations 5000]
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DynamoUnpublishedEvents,
  eventIdFor,
  makeSweepUnpublishedEvents,
  outboxItemAttributes,
  type OutboxMark,
  SqsEventQueue,
} from '#shared/events/index.ts';
import { withoutSdkLogging } from '#shared/kernel/aws/clients.ts';
import { type DynamoTable, writeBatch } from '#shared/kernel/aws/dynamo-table.ts';
import type { QueuesAndBuckets } from '#local/emulators.ts';
import { machine } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    marks: { type: 'string', default: '100000' },
    conversations: { type: 'string', default: '5000' },
  },
});
const marks = Number(values.marks);
const conversations = Number(values.conversations);

const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-sweep-'));
const child = fork(new URL('./lib/emulators-child.ts', import.meta.url), [dataDir], { stdio: 'inherit' });
const endpoints = await new Promise<QueuesAndBuckets & { dynamoEndpoint: string; tableName: string; region: string }>(
  (resolve) => child.once('message', (m) => resolve(m as never)),
);
const credentials = { accessKeyId: 'l', secretAccessKey: 'l' };
const calls = new Map<string, number>();
const count = <C extends { middlewareStack: { add: (...a: never[]) => unknown } }>(client: C): C => {
  (client.middlewareStack as { add: (m: unknown, o: unknown) => void }).add(
    (next: (a: unknown) => unknown, context: { commandName?: string }) => (args: unknown) => {
      calls.set(context.commandName ?? '?', (calls.get(context.commandName ?? '?') ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'bench-count' },
  );
  return client;
};
// As the functions' clients are (shared/kernel/aws/clients.ts): without the SDK's logger middleware.
const ddb = withoutSdkLogging(
  new DynamoDBClient({ region: endpoints.region, endpoint: endpoints.dynamoEndpoint, credentials, maxAttempts: 3 }),
);
const table: DynamoTable = {
  client: DynamoDBDocumentClient.from(ddb, { marshallOptions: { removeUndefinedValues: true } }),
  tableName: endpoints.tableName,
};
const sqs = withoutSdkLogging(
  new SQSClient({ region: endpoints.region, endpoint: endpoints.awsEndpoint, credentials, maxAttempts: 3 }),
);

// The backlog: items as a send or a report leaves them after a crash (a ~1 KB event message each).
const at = Date.now() - 120_000;
const projectId = `prj_${randomBytes(8).toString('hex')}`;
const seedStarted = performance.now();
for (let i = 0; i < marks; i += 25 * 8) {
  await Promise.all(
    Array.from({ length: 8 }, async (_, b) => {
      const from = i + b * 25;
      const items = [];
      for (let n = from; n < Math.min(from + 25, marks); n++) {
        const eventId = eventIdFor(`bench:${n}`, at + n);
        const conversation = `conv_${n % conversations}`;
        const body = JSON.stringify({ id: eventId, type: 'message.delivered', data: { pad: 'x'.repeat(700) } });
        const mark: OutboxMark = {
          eventId,
          at: at + n,
          message: JSON.stringify({
            v: 1,
            eventId,
            eventType: 'message.delivered',
            projectId,
            channelId: 'ch_bench',
            conversationId: conversation,
            acceptedAt: at + n,
            body,
          }),
          orderGroup: `${projectId}/conversation:${conversation}`,
        };
        const key = { pk: `MSG#msg_bench_${n}`, sk: 'MSG' };
        const item = { ...key, status: 'delivered', ...outboxItemAttributes(mark, key.pk), obWrittenAt: at + n };
        items.push({ PutRequest: { Item: item } });
      }
      if (items.length) await writeBatch(table, items);
    }),
  );
}
const seedSeconds = (performance.now() - seedStarted) / 1000;
count(ddb);
count(sqs);

const sweep = makeSweepUnpublishedEvents({
  outbox: new DynamoUnpublishedEvents(table),
  queue: new SqsEventQueue(sqs, endpoints.queueUrls.events, 16),
  sweepAfterMs: 30_000,
  log: { warn: () => {} },
  budgetMs: 24 * 3600_000,
});
const cpuBefore = process.cpuUsage();
const started = performance.now();
const published = await sweep();
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const cpuMsPerMark = (cpu.user + cpu.system) / 1000 / published;
const callsPerMark = Object.fromEntries(
  [...calls].map(([name, n]) => [name.replace(/Command$/, ''), +(n / published).toFixed(3)]),
);

// On AWS: DynamoDB and SQS do their own work; the run's Lambda spends the sweeper's CPU (a vCPU at the sweeper's
// 1,769 MB, counted as one core here). The latency bound: 8 shards at once, each page of 100 one Query, one
// BatchGetItem, its sends (10 a call, 16 calls at once) and 5 clears at a time, about 10 ms a round trip.
const lambdaVcpu = 1769 / 1769;
const cpuBoundPerSecond = (lambdaVcpu * 1000) / cpuMsPerMark;
const roundTripsPerPage = 1 + 1 + Math.ceil(100 / 10 / 16) + Math.ceil(100 / 5);
const latencyBoundPerSecond = (8 * 100) / (roundTripsPerPage * 0.01);
const perSecond = Math.min(cpuBoundPerSecond, latencyBoundPerSecond);
const runSeconds = 40;
console.log(
  JSON.stringify(
    {
      machine: machine(),
      marks,
      conversations,
      seedSeconds: +seedSeconds.toFixed(1),
      published,
      drainSeconds: +seconds.toFixed(1),
      drainPerSecondHere: Math.round(published / seconds),
      sweeperCpuMsPerMark: +cpuMsPerMark.toFixed(3),
      callsPerMark,
      aws: {
        cpuBoundMarksPerSecond: Math.round(cpuBoundPerSecond),
        latencyBoundMarksPerSecond: Math.round(latencyBoundPerSecond),
        marksPerRun: Math.round(perSecond * runSeconds),
        minutesForAMillion: +(1_000_000 / (perSecond * runSeconds)).toFixed(1),
      },
    },
    null,
    2,
  ),
);
ddb.destroy();
sqs.destroy();
child.disconnect();
await new Promise((r) => child.once('exit', r));
rmSync(dataDir, { recursive: true, force: true });
