/**
 * Send endpoint (bench/history/2026-11-send.md):
 *  - POST /api/integration/generic with the sandbox provider through the local gateway: p50 at 1 connection;
 *  - requests/s at 32 connections against a bare node:http server doing the same DynamoDB operations (token read,
 *    channel read, credit charge, message record) with the same adapters on the same dynalite, in the same run;
 *  - DynamoDB operations per send.
 * A second anchor does the same plus the same SQS enqueue of the event (with the same publisher), which separates
 * the cost of the endpoint's code from the cost of the local queue.
 * The load generator runs in its own process (bench/lib/load-client.ts) and records every response time.
 *
 * `--no-fanout` (diagnostic) runs without the webhooks fan-out worker, so events stay on the queue.
 * Run: npx tsx bench/send.ts [--seconds 5] [--rounds 5] [--no-fanout]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoChannelStore, DynamoMessageLog, DynamoMessageStatusStore } from '#shared/messaging/index.ts';
import { makeEventPublisher, markOf, SqsEventQueue } from '#shared/events/index.ts';
import { DynamoTokenStore } from '#shared/auth/index.ts';
import { bearerToken, hashToken } from '#shared/kernel/tokens.ts';
import { config } from '#shared/kernel/config.ts';
import { newId } from '#shared/kernel/ids.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { SQSClient } from '@aws-sdk/client-sqs';
import { startService } from '#local/service.ts';
import { queueWorkers } from '#shared/contract/workers.ts';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { localDocumentClient } from '#test/support/dynamo.ts';
import { adminApi, load, machine, median, type LoadResult } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    'no-fanout': { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-send-'));
const svc = await startService({
  port: 0,
  dataDir,
  env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
  // Diagnostic: leave the events on the queue (no fan-out worker), to tell the send's own cost from the webhooks'.
  ...(values['no-fanout'] ? { queueWorkerFns: queueWorkers.filter((w) => w.queue !== 'events').map((w) => w.fn) } : {}),
});
const admin = adminApi(svc);
const project = await admin('POST', '/projects', { companyId: 1042, name: 'bench' });
// Metered, so every send pays the credit charge (the full budget: token, channel, charge, record).
const channel = await admin('POST', `/projects/${project.projectId}/channels`, {
  type: 'sms',
  name: 'bench',
  address: '+5511999990000',
  credits: 1_000_000_000,
});
const { token } = await admin('POST', `/projects/${project.projectId}/integrations`, {
  product: 'custom',
  channelId: channel.channelId,
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const body = JSON.stringify({ to: '+5511988887777', body: 'Your code is 123456', metadata: { orderId: 42 } });

// Count the DynamoDB calls as dynalite receives them (the wire: the send function runs on the runner's HTTP thread).
// The webhooks fan-out worker's Query for the event is counted apart.
const dynamo = recordDynamoCalls(svc);

// The anchor: a bare node:http server doing the same DynamoDB operations with the same adapters on the same dynalite.
const anchorClient = localDocumentClient(svc.emulators.dynamoEndpoint);
const table = { client: anchorClient, tableName: svc.emulators.tableName };
const tokens = new DynamoTokenStore(table);
const channels = new DynamoChannelStore(table, createSecretBox(config().SECRETS_KEY!));
const messages = new DynamoMessageLog(table);
const anchorStatuses = new DynamoMessageStatusStore(table);
const anchorSqs = new SQSClient({
  region: 'us-east-1',
  endpoint: svc.emulators.awsEndpoint,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const anchorEvents = makeEventPublisher({
  queue: new SqsEventQueue(anchorSqs, svc.emulators.queueUrls.events),
  payloads: { put: async () => {}, get: async () => '' },
});
const anchor = createServer((req, res) => {
  const withEvent = req.url === '/with-event';
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string };
    const grant = await tokens.find(hashToken(bearerToken(req.headers.authorization) ?? ''));
    if (grant?.kind !== 'custom') return res.writeHead(401).end();
    const ch = await channels.get(grant.projectId, grant.channelId);
    if (!ch) return res.writeHead(404).end();
    if (!(await channels.chargeCredit(ch.projectId, ch.channelId))) return res.writeHead(402).end();
    const messageId = newId('msg');
    const sentAt = new Date().toISOString();
    const prepared = await anchorEvents.prepare(
      {
        type: 'message.sent',
        projectId: ch.projectId,
        companyId: ch.companyId,
        channel: { id: ch.channelId, type: ch.type, address: ch.address },
        data: { messageId, status: 'sent', to: payload.to, payload },
      },
      { key: `sent:${messageId}` },
    );
    // As the send endpoint does: the record carries the event's mark; the event goes; the mark is cleared.
    await messages.record(
      {
        messageId,
        projectId: ch.projectId,
        channelId: ch.channelId,
        channelType: ch.type,
        integrationId: grant.integrationId,
        provider: 'sandbox',
        to: payload.to,
        payload,
        status: 'sent',
        sentAt,
        conversationId: 'conv_anchor',
        contact: payload.to,
      },
      markOf(prepared),
    );
    if (withEvent) {
      await anchorEvents.send(prepared.message);
      await anchorStatuses.clearEvent(messageId, prepared.message.eventId);
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ success: true, messageId, status: 'sent', channel: { id: ch.channelId, type: ch.type } }));
  });
});
anchor.listen(0, '127.0.0.1');
await new Promise((r) => anchor.once('listening', r));
const anchorUrl = `http://127.0.0.1:${(anchor.address() as AddressInfo).port}/`;
const anchorWithEventUrl = `${anchorUrl}with-event`;
const gatewayUrl = `${svc.baseUrl}/api/integration/generic`;

// Operations per send, and a warm-up (the SDK + dynalite path runs slow for its first seconds).
dynamo.reset();
for (let i = 0; i < 50; i++) {
  const res = await fetch(gatewayUrl, { method: 'POST', headers, body });
  if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
}
await new Promise((r) => setTimeout(r, 2000)); // let the fan-out drain the 50 events
const ddbCalls = new Map<string, number>();
for (const op of dynamo.calls) ddbCalls.set(op, (ddbCalls.get(op) ?? 0) + 1);
dynamo.stop();
const perSend = [...ddbCalls].map(([name, n]) => `${name} ${(n / 50).toFixed(2)}`).join(', ');
const sendOps = [...ddbCalls].filter(([name]) => name !== 'Query').reduce((sum, [, n]) => sum + n, 0) / 50;
await load({ url: gatewayUrl, method: 'POST', headers, body, connections: 8, seconds: 3 });
await load({ url: anchorUrl, method: 'POST', headers, body, connections: 8, seconds: 3 });

/** CPU time of this process (gateway, functions, dynalite, fauxqs: everything but the load client) per request. */
async function cpuPerRequest(url: string, connections: number): Promise<number> {
  const before = process.cpuUsage();
  const r = await load({ url, method: 'POST', headers, body, connections, seconds });
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / r.requests;
}

const results: Record<string, LoadResult[]> = {};
const ratios: number[] = [];
const eventRatios: number[] = [];
const cpu = { gateway: [] as number[], bare: [] as number[] };
const add = (name: string, r: LoadResult) => {
  const bad = Object.entries(r.statuses).filter(([s]) => s !== '200');
  if (bad.length || r.errors)
    throw new Error(`${name}: non-200 answers ${JSON.stringify(r.statuses)}, errors ${r.errors}`);
  results[name] ??= [];
  results[name].push(r);
  return r;
};
for (let round = 0; round < rounds; round++) {
  add('gateway c=1', await load({ url: gatewayUrl, method: 'POST', headers, body, connections: 1, seconds }));
  add('bare node:http c=1', await load({ url: anchorUrl, method: 'POST', headers, body, connections: 1, seconds }));
  const g = add(
    'gateway c=32',
    await load({ url: gatewayUrl, method: 'POST', headers, body, connections: 32, seconds }),
  );
  const b = add(
    'bare node:http c=32',
    await load({ url: anchorUrl, method: 'POST', headers, body, connections: 32, seconds }),
  );
  const be = add(
    'bare node:http + SQS enqueue c=32',
    await load({ url: anchorWithEventUrl, method: 'POST', headers, body, connections: 32, seconds }),
  );
  ratios.push(g.rps / b.rps);
  eventRatios.push(g.rps / be.rps);
  cpu.gateway.push(await cpuPerRequest(gatewayUrl, 32));
  cpu.bare.push(await cpuPerRequest(anchorUrl, 32));
  console.error(
    `round ${round + 1}/${rounds}: gateway c=32 ${g.rps.toFixed(0)} req/s, bare ${b.rps.toFixed(0)} req/s (${((g.rps / b.rps) * 100).toFixed(0)} %); ` +
      `CPU per request ${cpu.gateway.at(-1)!.toFixed(2)} ms vs ${cpu.bare.at(-1)!.toFixed(2)} ms`,
  );
}

const fmt = (n: number, d = 2) => n.toFixed(d);
console.log(`\nSend endpoint (sandbox) — ${machine()} — ${new Date().toISOString().slice(0, 10)}`);
console.log(
  `npx tsx bench/send.ts --seconds ${seconds} --rounds ${rounds} ${values['no-fanout'] ? ' --no-fanout' : ''}\n`,
);
console.log(
  `DynamoDB operations per send (metered channel): ${fmt(sendOps, 2)} by the send function; all calls per send: ${perSend}`,
);
console.log("(the Query is the webhooks fan-out reading the project's webhooks for the message.sent event)\n");
console.log('| path | p50 ms | p99 ms | req/s |');
console.log('|---|---|---|---|');
for (const [name, rows] of Object.entries(results)) {
  console.log(
    `| ${name} | ${fmt(median(rows.map((r) => r.p50)))} | ${fmt(median(rows.map((r) => r.p99)))} | ${fmt(median(rows.map((r) => r.rps)), 0)} |`,
  );
}
console.log(
  `\nCPU of the service process per request at 32 connections (median): gateway ${fmt(median(cpu.gateway))} ms, bare ${fmt(median(cpu.bare))} ms ` +
    `(bare / gateway ${fmt((median(cpu.bare) / median(cpu.gateway)) * 100, 0)} %)`,
);
console.log(
  `gateway / bare node:http at 32 connections, per round: ${ratios.map((r) => `${fmt(r * 100, 0)} %`).join(', ')}; median ${fmt(median(ratios) * 100, 0)} %`,
);
console.log(
  `gateway / bare node:http + SQS enqueue at 32 connections, per round: ${eventRatios.map((r) => `${fmt(r * 100, 0)} %`).join(', ')}; ` +
    `median ${fmt(median(eventRatios) * 100, 0)} %`,
);

anchor.close();
anchorClient.destroy();
anchorSqs.destroy();
await svc.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
