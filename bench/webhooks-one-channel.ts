/**
 * One busy channel, closed loop: 32 producers post `message.sent` events on one channel to the local service (as
 * `npm start` runs it) for a 2 s warm-up and a measured window; one general webhook, a local receiver answering 200.
 * `--mode channel` posts events without `data.conversationId` (one FIFO group: the channel), `--mode conversations`
 * gives each a `conversationId` out of 500 (500 groups). Prints events posted/s, deliveries/s, the runner's CPU per
 * delivery (from /proc) and the backlog when the window closed. The diagnosis (bench/history/2026-11-webhooks-for-chat-back-ends.md): before the SQS stand-in
 * received several messages of a group at once, `channel` delivered ~6× less than `conversations`.
 *
 * Run: npx tsx bench/webhooks-one-channel.ts [--mode channel|conversations] [--seconds 8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startReceiver } from '#test/e2e/webhooks-support.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { keepAliveAdminApi, machine, processCpuMs } from './lib/harness.ts';

const { values } = parseArgs({
  options: { mode: { type: 'string', default: 'channel' }, seconds: { type: 'string', default: '8' } },
});
const mode = values.mode === 'conversations' ? 'conversations' : 'channel';
const seconds = Number(values.seconds);

const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-one-channel-'));
const svc = await spawnService({ DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT' }, 30_000);
const { call, close: closeAdminApi } = keepAliveAdminApi(svc);
/** User + system CPU seconds of the service process so far (all its threads). */
const runnerCpu = () => processCpuMs(svc.child.pid!) / 1000;

const receiver = await startReceiver();
const project = (await call('POST', '/projects', { companyId: 1042, name: 'bench' })).json;
const channel = (
  await call('POST', `/projects/${project.projectId}/channels`, { type: 'sms', name: 'c', address: '+5511999990000' })
).json;
await call('POST', `/projects/${project.projectId}/integrations`, {
  product: 'webhook',
  scope: 'general',
  url: receiver.url,
});

let posted = 0;
let stop = false;
const producers = Array.from({ length: 32 }, async () => {
  while (!stop) {
    const n = posted;
    const data = { n, ...(mode === 'conversations' ? { conversationId: `conv_${n % 500}` } : {}) };
    const res = await call('POST', `/projects/${project.projectId}/events`, {
      channelId: channel.channelId,
      type: 'message.sent',
      data,
    });
    if (res.status === 202) posted++;
  }
});
await new Promise((r) => setTimeout(r, 2_000));
const start = { posted, received: receiver.received.length, cpu: runnerCpu(), t: performance.now() };
await new Promise((r) => setTimeout(r, seconds * 1000));
const end = { posted, received: receiver.received.length, cpu: runnerCpu(), t: performance.now() };
stop = true;
await Promise.all(producers);
const window = (end.t - start.t) / 1000;
const delivered = end.received - start.received;
console.log(
  JSON.stringify(
    {
      machine: machine(),
      date: new Date().toISOString(),
      command: `npx tsx bench/webhooks-one-channel.ts --mode ${mode} --seconds ${seconds}`,
      eventsPostedPerS: Math.round(((end.posted - start.posted) / window) * 10) / 10,
      deliveriesPerS: Math.round((delivered / window) * 10) / 10,
      runnerCpuMsPerDelivery: Math.round((((end.cpu - start.cpu) * 1000) / Math.max(1, delivered)) * 10) / 10,
      backlogAtEnd: end.posted - end.received,
    },
    null,
    2,
  ),
);
closeAdminApi();
await receiver.close();
await stopProcess(svc.child, 'SIGKILL');
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
