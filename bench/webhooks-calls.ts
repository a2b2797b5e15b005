/**
 * Webhooks, counted on the wire: what the local runner (`local/main.ts` in its own process, as `npm start` runs it)
 * sends per delivery when 32 producers post `--events` events as fast as it accepts them (the closed loop of
 * `bench/webhooks.ts`), to 1 webhook per event and then to 3. Every request any of the runner's threads sends is
 * counted by AWS operation (DynamoDB, SQS, S3) or host (the deliveries themselves), through a preload
 * (`bench/lib/wire-counter.mjs`) that changes nothing in the service, so a baseline tree is counted the same way:
 * `--cwd <checkout>`. Also prints deliveries/s and the runner's CPU per delivery over the run (first post to last
 * delivery), which load moves; the counts it barely does (how full the queue batches are depends on timing).
 * A fixed amount of work, unlike the closed-loop window of `bench/webhooks.ts`: every event posted is delivered
 * within the measured span, so CPU spent accepting events faster than they are delivered (a backlog growing in
 * the window) is not counted against fewer deliveries, and a cheaper intake cannot hide a cheaper delivery.
 *
 * Run: npx tsx bench/webhooks-calls.ts [--events 3000] [--cwd /path/to/other/checkout]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startReceiver, type TestReceiver } from '#test/e2e/webhooks-support.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { keepAliveAdminApi, machine, processCpuMs } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '3000' },
    cwd: { type: 'string' },
    producers: { type: 'string', default: '32' },
    /** Only this many webhooks per event (1 or 3); both by default. */
    only: { type: 'string' },
    /** A directory for V8 CPU profiles of the runner's threads (written when it stops, start-up included). */
    profile: { type: 'string' },
  },
});
const events = Number(values.events);
const producersN = Number(values.producers);

const countDir = mkdtempSync(join(tmpdir(), 'sb-bench-wire-'));
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-wh-calls-'));
const profile = values.profile ? resolve(values.profile) : undefined;
const svc = await spawnService(
  {
    DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    WIRE_COUNT_DIR: countDir,
    WIRE_COUNT_DETAIL: process.env.WIRE_COUNT_DETAIL ?? '',
    ...(profile ? { WIRE_CPU_PROF_DIR: profile } : {}),
  },
  60_000,
  {
    ...(values.cwd ? { cwd: values.cwd } : {}),
    nodeArgs: [
      '--import',
      new URL('./lib/wire-counter.mjs', import.meta.url).href,
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
    ],
  },
);
const { call, close: closeAdminApi } = keepAliveAdminApi(svc);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The runner's requests so far, summed over its threads, with the deliveries' hosts folded into one key. */
function wire(receiverHosts: Set<string>): Record<string, number> {
  const total: Record<string, number> = {};
  for (const f of readdirSync(countDir)) {
    let counts: Record<string, number>;
    try {
      counts = JSON.parse(readFileSync(join(countDir, f), 'utf8'));
    } catch {
      continue; // being written
    }
    for (const [k, n] of Object.entries(counts)) {
      const host = k.split(' ')[1] ?? '';
      const key = receiverHosts.has(host) ? 'webhook POST' : k.replace(/^(AmazonSQS|DynamoDB_\d+)\./, '$1 ');
      total[key] = (total[key] ?? 0) + n;
    }
  }
  return total;
}

async function quiet(receiver: TestReceiver, expected: number) {
  await receiver.waitFor(expected, 300_000);
  await sleep(2_500); // the attempts' writes and the deletes after the last delivery; the counter flushes every second
}

async function run(perEvent: 1 | 3) {
  const receiver = await startReceiver();
  const hosts = new Set([new URL(receiver.url).host]);
  const project = (await call('POST', '/projects', { companyId: 1042, name: 'bench' })).json;
  const channel = (
    await call('POST', `/projects/${project.projectId}/channels`, { type: 'sms', name: 'c', address: '+5511999990000' })
  ).json;
  const hooks = perEvent === 1 ? ['general'] : ['general', 'channel', 'channel'];
  for (const scope of hooks) {
    await call('POST', `/projects/${project.projectId}/integrations`, {
      product: 'webhook',
      scope,
      url: receiver.url,
      ...(scope === 'channel' ? { channelId: channel.channelId } : {}),
    });
  }
  const post = (n: number) =>
    call('POST', `/projects/${project.projectId}/events`, {
      channelId: channel.channelId,
      type: 'message.sent',
      data: { n, text: 'Olá! Your order #12345 has shipped.' },
    });
  // Warm-up: the webhooks cached, each one's health learnt once.
  for (let i = 0; i < 20; i++) await post(-1);
  await quiet(receiver, 20 * perEvent);
  const before = wire(hosts);
  const [cpu0, t0, received0] = [processCpuMs(svc.child.pid!), performance.now(), receiver.received.length];
  let next = 0;
  await Promise.all(
    Array.from({ length: producersN }, async () => {
      while (next < events) {
        const n = next++;
        const res = await post(n);
        if (res.status !== 202) throw new Error(`POST /events answered ${res.status}`);
      }
    }),
  );
  const tPosted = performance.now();
  await receiver.waitFor(received0 + events * perEvent, 300_000);
  const [cpu1, t1] = [processCpuMs(svc.child.pid!), performance.now()];
  await quiet(receiver, received0 + events * perEvent);
  const after = wire(hosts);
  const deliveries = receiver.received.length - received0;
  const perDelivery: Record<string, number> = {};
  for (const k of Object.keys(after).sort()) {
    const n = (after[k] ?? 0) - (before[k] ?? 0);
    if (n) perDelivery[k] = Math.round((n / deliveries) * 1000) / 1000;
  }
  const sum = (prefix: string) =>
    Math.round(
      Object.entries(perDelivery)
        .filter(([k]) => k.startsWith(prefix))
        .reduce((a, [, v]) => a + v, 0) * 1000,
    ) / 1000;
  await receiver.close();
  return {
    webhooksPerEvent: perEvent,
    events,
    deliveries,
    eventsAcceptedPerS: Math.round((events / ((tPosted - t0) / 1000)) * 10) / 10,
    deliveriesPerS: Math.round((deliveries / ((t1 - t0) / 1000)) * 10) / 10,
    runnerCpuMsPerDelivery: Math.round(((cpu1 - cpu0) / deliveries) * 100) / 100,
    callsPerDelivery: perDelivery,
    dynamoPerDelivery: sum('DynamoDB'),
    sqsPerDelivery: sum('AmazonSQS'),
  };
}

try {
  const one = values.only === '3' ? undefined : await run(1);
  const three = values.only === '1' ? undefined : await run(3);
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        date: new Date().toISOString(),
        tree: values.cwd ?? process.cwd(),
        command: `npx tsx bench/webhooks-calls.ts --events ${events}${values.cwd ? ` --cwd ${values.cwd}` : ''}`,
        runs: [one, three].filter(Boolean),
      },
      null,
      2,
    ),
  );
} finally {
  closeAdminApi();
  // A profiled runner stops as `npm start` does on Ctrl-C: its threads write their profiles as they end.
  await stopProcess(svc.child, profile ? 'SIGTERM' : 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(countDir, { recursive: true, force: true });
}
process.exit(0);
