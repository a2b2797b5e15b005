/**
 * Webhooks past Svix (recover, pacing; bench/history/2026-11-webhooks-recover-and-pacing.md), through the local runner (`local/main.ts` in its own process):
 *
 *  - recover: `--failed` (10,000) events to a receiver answering 500 until every delivery is `failed`
 *    (WEBHOOK_RETRY_SCHEDULE=0: two attempts), then the receiver answers 200 and one `POST …/recover` runs:
 *    seconds from the call until every delivery has reached the receiver again (each webhook-id once more);
 *  - pacing isolation: 32 producers post events for `--seconds` to a project whose events go to an unpaced webhook;
 *    the unpaced receiver's deliveries/s, first with that webhook alone (baseline), then with a second unpaced
 *    webhook on the same events (the same work without pacing), then with the second webhook paced at 10/s (its
 *    backlog held back on the queue the whole time). Shares of the paced run against both, in the same service;
 *    and the most starts the paced receiver saw in any one second.
 *
 * Run: npx tsx bench/webhooks-recover-pacing.ts [--failed 10000] [--seconds 10] [--rounds 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startReceiver, type TestReceiver } from '#test/e2e/webhooks-support.ts';
import { spawnService, stopProcess, type ServiceProcess } from '#test/support/process.ts';
import { machine, median } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    failed: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    skip: { type: 'string', default: '' },
  },
});
const failedCount = Number(values.failed);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withService<T>(env: Record<string, string>, run: (svc: ServiceProcess) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-wh16-'));
  const svc = await spawnService({ DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env }, 30_000);
  try {
    return await run(svc);
  } finally {
    await stopProcess(svc.child, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function api(svc: ServiceProcess) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${svc.baseUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
}

async function project(call: ReturnType<typeof api>) {
  const { projectId } = (await call('POST', '/projects', { companyId: 1042, name: 'bench' })).json;
  const { channelId } = (
    await call('POST', `/projects/${projectId}/channels`, { type: 'sms', name: 'bench', address: '+5511999990000' })
  ).json;
  const webhook = async (body: Record<string, unknown>) => {
    const res = await call('POST', `/projects/${projectId}/integrations`, { product: 'webhook', ...body });
    if (res.status !== 201) throw new Error(`webhook create: ${JSON.stringify(res.json)}`);
    return res.json.integrationId as string;
  };
  const post = (n: number) =>
    call('POST', `/projects/${projectId}/events`, { channelId, type: 'message.sent', data: { n } });
  return { projectId, channelId, webhook, post };
}

async function postMany(post: (n: number) => Promise<{ status: number }>, count: number, concurrency = 32) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        const res = await post(n);
        if (res.status !== 202) throw new Error(`event ${n}: HTTP ${res.status}`);
      }
    }),
  );
}

async function recoverRun() {
  return withService({ WEBHOOK_RETRY_SCHEDULE: '0' }, async (svc) => {
    const call = api(svc);
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 500));
    try {
      const p = await project(call);
      const hookId = await p.webhook({ scope: 'general', url: receiver.url });
      const since = new Date(Date.now() - 60_000).toISOString();
      const t0 = performance.now();
      await postMany(p.post, failedCount);
      // Two attempts each, both 500: then every delivery is failed.
      await receiver.waitFor(2 * failedCount, 600_000);
      await sleep(3_000);
      const failingS = (performance.now() - t0) / 1000;
      let failed = 0;
      let cursor: string | undefined;
      do {
        const page = await call(
          'GET',
          `/projects/${p.projectId}/integrations/${hookId}/deliveries?status=failed&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        );
        failed += page.json.items.length;
        cursor = page.json.nextCursor;
      } while (cursor);
      healthy = true;
      const before = receiver.received.length;
      const r0 = performance.now();
      const res = await call('POST', `/projects/${p.projectId}/integrations/${hookId}/recover`, { since });
      const callS = (performance.now() - r0) / 1000;
      await receiver.waitFor(before + failed, 600_000);
      const allS = (performance.now() - r0) / 1000;
      await sleep(2_000);
      const again = receiver.received.slice(before);
      return {
        failedBefore: failed,
        secondsToMakeThemFail: Math.round(failingS),
        recoverStatus: res.status,
        recoverAnswer: res.json,
        recoverCallS: Math.round(callS * 100) / 100,
        redeliveredAll_S: Math.round(allS * 100) / 100,
        redelivered: again.length,
        distinctRedelivered: new Set(again.map((d) => d.headers['webhook-id'])).size,
        redeliveredAnswered200: again.length,
      };
    } finally {
      await receiver.close();
    }
  });
}

/** 32 producers for `seconds` after a 2 s warm-up; deliveries/s at `measured` in the window. */
async function closedLoop(
  post: (n: number) => Promise<{ status: number }>,
  measured: TestReceiver,
  drained: TestReceiver[] = [measured],
) {
  let stop = false;
  let n = 0;
  const producers = Array.from({ length: 32 }, async () => {
    while (!stop) await post(n++);
  });
  await sleep(2_000);
  const [c0, t0] = [measured.received.length, performance.now()];
  await sleep(seconds * 1000);
  const [c1, t1] = [measured.received.length, performance.now()];
  stop = true;
  await Promise.all(producers);
  // The next run starts on an empty queue: wait until every event posted here reached the receivers.
  await Promise.all(drained.map((r) => r.waitFor(n, 300_000)));
  return (c1 - c0) / ((t1 - t0) / 1000);
}

async function pacingRound() {
  return withService({}, async (svc) => {
    const call = api(svc);
    const [alone, unpaced, paced] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    const extra: TestReceiver[] = [];
    try {
      const a = await project(call);
      await a.webhook({ scope: 'general', url: alone.url });
      // The same work without pacing: a second unpaced webhook on every event.
      const [twin, twinOther] = await Promise.all([startReceiver(), startReceiver()]);
      extra.push(twin, twinOther);
      const c = await project(call);
      await c.webhook({ scope: 'general', url: twin.url });
      await c.webhook({ scope: 'channel', channelId: c.channelId, url: twinOther.url });
      const b = await project(call);
      await b.webhook({ scope: 'general', url: unpaced.url });
      await b.webhook({ scope: 'channel', channelId: b.channelId, url: paced.url, rateLimitPerSecond: 10 });
      const baselinePerS = await closedLoop(a.post, alone);
      const twoUnpacedPerS = await closedLoop(c.post, twin, [twin, twinOther]);
      const pacedStart = paced.received.length;
      const p0 = performance.now();
      // The paced run comes last: its backlog (10/s) never drains within a run.
      const withPacedPerS = await closedLoop(b.post, unpaced, []);
      const pacedPerS = (paced.received.length - pacedStart) / ((performance.now() - p0) / 1000);
      const times = paced.received.map((d) => d.arrivedAt).sort((x, y) => x - y);
      let busiest = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i]! - times[j]! >= 1000) j++;
        busiest = Math.max(busiest, i - j + 1);
      }
      return {
        baselinePerS,
        twoUnpacedPerS,
        withPacedPerS,
        share: withPacedPerS / baselinePerS,
        shareOfTwoUnpaced: withPacedPerS / twoUnpacedPerS,
        pacedDeliveredPerS: pacedPerS,
        pacedBusiestSecond: busiest,
      };
    } finally {
      await Promise.all([alone, unpaced, paced, ...extra].map((r) => r.close()));
    }
  });
}

const load0 = loadavg();
const skip = new Set(values.skip.split(',').filter(Boolean));
const pacing = [];
if (!skip.has('pacing')) {
  for (let i = 0; i < rounds; i++) {
    const r = await pacingRound();
    pacing.push(r);
    console.error(`pacing round ${i + 1}/${rounds}: ${JSON.stringify(r)}`);
  }
}
const recover = skip.has('recover') ? undefined : await recoverRun();
const r2 = (x: number) => Math.round(x * 100) / 100;
console.log(
  JSON.stringify(
    {
      machine: machine(),
      date: new Date().toISOString(),
      loadAverageAtStart: load0.map(r2),
      loadAverageAtEnd: loadavg().map(r2),
      command: `npx tsx bench/webhooks-recover-pacing.ts --failed ${failedCount} --seconds ${seconds} --rounds ${rounds}`,
      recover,
      pacingIsolation: pacing.length
        ? {
            rounds: pacing,
            medianBaselinePerS: r2(median(pacing.map((r) => r.baselinePerS))),
            medianWithPacedPerS: r2(median(pacing.map((r) => r.withPacedPerS))),
            medianTwoUnpacedPerS: r2(median(pacing.map((r) => r.twoUnpacedPerS))),
            medianShare: r2(median(pacing.map((r) => r.share))),
            medianShareOfTwoUnpaced: r2(median(pacing.map((r) => r.shareOfTwoUnpaced))),
            pacedBusiestSecondMax: Math.max(...pacing.map((r) => r.pacedBusiestSecond)),
          }
        : undefined,
    },
    null,
    2,
  ),
);
process.exit(0);
