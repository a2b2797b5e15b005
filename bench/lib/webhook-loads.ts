import { readFileSync } from 'node:fs';
import type { TestReceiver } from '#test/e2e/webhooks-support.ts';
import type { ServiceProcess } from '#test/support/process.ts';
import { keepAliveAdminApi } from './harness.ts';

/**
 * The webhooks benchmark's loads on a running service: a driver over the management API (a project, its webhooks,
 * events posted), a closed loop of producers (`throughput`) and an open loop at a rate (`openLoop`).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An open-loop run: events posted on schedule at `rate`, whatever the earlier posts are doing. */
export interface OpenLoop {
  /** Events posted per second in the measured window. */
  offeredPerS: number;
  /** Deliveries received in the window, per second. */
  deliveredPerS: number;
  runnerCpuMsPerDelivery: number;
  runnerCpuShare: number;
  /** Events posted in the window whose delivery had not arrived when the window closed. */
  backlogAtEnd: number;
  /** Event accepted (the envelope's timestamp) → delivery received, for the events posted in the window. */
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Share of the window's events delivered (after the drain). */
  deliveredShare: number;
}

export interface Throughput {
  postedPerS: number;
  deliveredPerS: number;
  /** CPU time of the runner process (all its threads) per delivery in the window, and its share of one core. */
  runnerCpuMsPerDelivery: number;
  runnerCpuShare: number;
  /** Events posted but not yet delivered when the window closed. */
  backlogAtEnd: number;
  /** Seconds after the producers stopped until every posted event was delivered. */
  drainS: number;
}

export class Driver {
  private readonly adminApi: ReturnType<typeof keepAliveAdminApi>;
  constructor(private readonly svc: ServiceProcess) {
    this.adminApi = keepAliveAdminApi(svc);
  }

  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    return this.adminApi.call(method, path, body);
  }

  async setup(webhooks: { scope: 'general' | 'channel'; url: string }[]) {
    const project = (await this.call('POST', '/projects', { companyId: 1042, name: 'bench' })).json;
    const channel = (
      await this.call('POST', `/projects/${project.projectId}/channels`, {
        type: 'sms',
        name: 'bench',
        address: '+5511999990000',
      })
    ).json;
    const integrationIds: string[] = [];
    for (const w of webhooks) {
      const res = await this.call('POST', `/projects/${project.projectId}/integrations`, {
        product: 'webhook',
        ...w,
        ...(w.scope === 'channel' ? { channelId: channel.channelId } : {}),
      });
      if (res.status !== 201) throw new Error(`webhook create failed: ${JSON.stringify(res.json)}`);
      integrationIds.push(res.json.integrationId);
    }
    return { projectId: project.projectId as string, channelId: channel.channelId as string, integrationIds };
  }

  postEvent(target: { projectId: string; channelId: string }, n: number) {
    return this.call('POST', `/projects/${target.projectId}/events`, {
      channelId: target.channelId,
      type: 'message.sent',
      data: { n, text: 'Olá! Your order #12345 has shipped.' },
    });
  }

  /** User + system CPU seconds of the runner process so far (Linux /proc; clock ticks of 1/100 s). */
  runnerCpuSeconds(): number {
    const fields = readFileSync(`/proc/${this.svc.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  close() {
    this.adminApi.close();
  }
}

/** 32 producers post events as fast as the service accepts them; deliveries counted in the measured window. */
export async function throughput(
  driver: Driver,
  healthy: TestReceiver,
  target: { projectId: string; channelId: string },
  perEvent: number,
  /** The measured window, after `warmupS` of warm-up. */
  { seconds, warmupS }: { seconds: number; warmupS: number },
): Promise<Throughput> {
  let posted = 0;
  let stop = false;
  const producers = Array.from({ length: 32 }, async () => {
    while (!stop) {
      const res = await driver.postEvent(target, posted);
      if (res.status === 202) posted++;
    }
  });
  await sleep(warmupS * 1000);
  const [postedAtStart, receivedAtStart, t0, cpu0] = [
    posted,
    healthy.received.length,
    performance.now(),
    driver.runnerCpuSeconds(),
  ];
  await sleep(seconds * 1000);
  const [postedAtEnd, receivedAtEnd, t1, cpu1] = [
    posted,
    healthy.received.length,
    performance.now(),
    driver.runnerCpuSeconds(),
  ];
  stop = true;
  await Promise.all(producers);
  const window = (t1 - t0) / 1000;
  const expected = posted * perEvent;
  const drainStart = performance.now();
  await healthy.waitFor(expected, 120_000).catch(() => undefined);
  return {
    postedPerS: (postedAtEnd - postedAtStart) / window,
    deliveredPerS: (receivedAtEnd - receivedAtStart) / window,
    runnerCpuMsPerDelivery: ((cpu1 - cpu0) * 1000) / Math.max(1, receivedAtEnd - receivedAtStart),
    runnerCpuShare: (cpu1 - cpu0) / window,
    backlogAtEnd: postedAtEnd * perEvent - receivedAtEnd,
    drainS: (performance.now() - drainStart) / 1000,
  };
}

/**
 * Open loop at `rate` events/s (each POST sent on schedule, whatever the previous ones are doing) for `warmupS`, then
 * the measured window of `durationS`. At the target rate this is what the pipeline sustains: the deliveries keep up
 * with the events (the backlog stays small) and their latency stays low; a closed loop (`throughput`) instead
 * measures how fast the service accepts events while the deliveries fall behind.
 */
export async function openLoop(
  driver: Driver,
  receiver: TestReceiver,
  target: { projectId: string; channelId: string },
  rate: number,
  { warmupS, durationS }: { warmupS: number; durationS: number },
): Promise<OpenLoop> {
  const warmup = Math.round(rate * warmupS);
  const total = warmup + Math.max(1, Math.round(rate * durationS));
  const started = performance.now();
  const posts: Promise<unknown>[] = [];
  let windowStart = { received: 0, t: 0, cpu: 0 };
  for (let i = 0; i < total; i++) {
    if (i === warmup)
      windowStart = { received: receiver.received.length, t: performance.now(), cpu: driver.runnerCpuSeconds() };
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    posts.push(driver.postEvent(target, i));
  }
  const [received1, t1, cpu1] = [receiver.received.length, performance.now(), driver.runnerCpuSeconds()];
  const window = (t1 - windowStart.t) / 1000;
  const inWindow = (d: { json: any }) => d.json?.data?.n >= warmup;
  const deliveredOfWindowAtEnd = receiver.received.filter(inWindow).length;
  await Promise.all(posts);
  await receiver.waitFor(total, 180_000).catch(() => undefined);
  const latencies = receiver.received
    .filter(inWindow)
    .map((d) => d.at - Date.parse(d.json.timestamp))
    .sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  const delivered = received1 - windowStart.received;
  return {
    offeredPerS: (total - warmup) / window,
    deliveredPerS: delivered / window,
    runnerCpuMsPerDelivery: ((cpu1 - windowStart.cpu) * 1000) / Math.max(1, delivered),
    runnerCpuShare: (cpu1 - windowStart.cpu) / window,
    backlogAtEnd: total - warmup - deliveredOfWindowAtEnd,
    p50: pct(50),
    p95: pct(95),
    p99: pct(99),
    max: latencies.at(-1) ?? NaN,
    deliveredShare: latencies.length / (total - warmup),
  };
}
