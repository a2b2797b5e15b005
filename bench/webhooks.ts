/**
 * Webhooks (bench/history/2026-11-webhooks.md), through the local runner (`npm start`: one process, its own dynalite and fauxqs):
 *
 *  - throughput: deliveries/s sustained to a local receiver answering 200 at once, events posted by 32 concurrent
 *    producers on `POST /admin/v1/projects/{p}/events` (1 webhook per event, then 3 webhooks per event);
 *  - latency: event accepted (the envelope's timestamp) → delivery received, open loop at `--rate` (100 events/s)
 *    and at half the rate the round just sustained;
 *  - isolation: the throughput run again with a second receiver that never answers subscribed to every event
 *    (measured after 20 s, in the sustained regime); healthy deliveries/s as a share of the plain run just before;
 *  - the runner's CPU time per delivery (from /proc), which the machine's noise moves far less than rates do;
 *  - the bounds, measured in the same round on this machine: dynalite conditional writes/s, fauxqs messages/s end
 *    to end (send batch, receive, delete batch; SQLite persistence on, as the runner has it), loopback POSTs/s.
 *
 * Each round runs in a fresh service process (`local/main.ts`); the producers and receivers run in this process.
 * Reports medians over the rounds.
 *  - sustained: an open loop at `--target` (the 300 events/s), plain and with the hanging receiver: the
 *    deliveries/s the pipeline keeps up with, the backlog when the window closes, the latency at that rate.
 *
 * Run: npx tsx bench/webhooks.ts [--seconds 10] [--rounds 3] [--rate 100] [--target 300]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startEmulators } from '#local/emulators.ts';
import { startReceiver, type TestReceiver } from '#test/e2e/webhooks-support.ts';
import { spawnService, stopProcess, type ServiceProcess } from '#test/support/process.ts';
import { keepAliveAdminApi, machine, median } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '100' },
    target: { type: 'string', default: '300' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const latencyRate = Number(values.rate);
const targetRate = Number(values.target);
const WARMUP_S = 2;

interface Round {
  anchors: { dynaliteWritesPerS: number; fauxqsMsgsPerS: number; loopbackPostsPerS: number };
  throughput1: Throughput;
  throughput3: Throughput;
  /** At half the rate this round sustained (a rate the machine keeps up with right now). */
  latencyAtHalf: OpenLoop;
  /** At `--rate` (the 100 events/s), for half the window. */
  latencyAtRate: OpenLoop;
  /** Plain run again just before the isolation run: its difference from `throughput1` shows the noise. */
  throughput1Again: Throughput;
  isolation: Throughput & { hangingReceived: number; hangingMaxOpen: number };
  /** Open loop at `--target` (the 300 events/s, 1 webhook per event). */
  sustained: OpenLoop;
  /** The same with a second webhook whose receiver never answers, on every event. */
  sustainedWithHanging: OpenLoop & { hangingReceived: number; hangingMaxOpen: number };
}

/** An open-loop run: events posted on schedule at `rate`, whatever the earlier posts are doing. */
interface OpenLoop {
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

interface Throughput {
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

// ---------------------------------------------------------------------------------------------- the bounds

async function dynaliteAnchor(endpoint: string, tableName: string): Promise<number> {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'l', secretAccessKey: 'l' } }),
  );
  const write = (i: number) =>
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: `BENCH#${i % 64}`, sk: 'x' },
        UpdateExpression: 'SET attempts = list_append(if_not_exists(attempts, :e), :a)',
        ConditionExpression: 'attribute_not_exists(#s) OR #s <> :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':e': [], ':a': [{ at: 'x', statusCode: 200, durationMs: 1 }], ':s': 'succeeded' },
      }),
    );
  const rate = await closedLoop(32, seconds / 2, async (i) => {
    await write(i);
  });
  client.destroy();
  return rate;
}

async function fauxqsAnchor(endpoint: string): Promise<number> {
  const sqs = new SQSClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: 'bench-anchor' }))).QueueUrl!;
  let consumed = 0;
  const end = Date.now() + (seconds / 2) * 1000;
  const started = Date.now();
  const producers = Array.from({ length: 2 }, async () => {
    while (Date.now() < end) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: Array.from({ length: 10 }, (_, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify({ n: i, pad: 'x'.repeat(500) }),
          })),
        }),
      );
    }
  });
  const consumers = Array.from({ length: 4 }, async () => {
    while (Date.now() < end) {
      const out = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      const msgs = out.Messages ?? [];
      if (!msgs.length) continue;
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: msgs.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
      consumed += msgs.length;
    }
  });
  await Promise.all([...producers, ...consumers]);
  sqs.destroy();
  return consumed / ((Date.now() - started) / 1000);
}

async function loopbackAnchor(): Promise<number> {
  const receiver = await startReceiver();
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const body = JSON.stringify({ id: 'evt_x', type: 'message.sent', data: { pad: 'x'.repeat(200) } });
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        receiver.url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const rate = await closedLoop(32, seconds / 2, post);
  agent.destroy();
  await receiver.close();
  return rate;
}

/** Runs `fn` from `concurrency` loops for `durationS`; calls per second. */
async function closedLoop(concurrency: number, durationS: number, fn: (i: number) => Promise<void>): Promise<number> {
  let n = 0;
  const end = performance.now() + durationS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await fn(n++);
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

// ---------------------------------------------------------------------------------------------- the service

class Driver {
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
async function throughput(
  driver: Driver,
  healthy: TestReceiver,
  target: { projectId: string; channelId: string },
  perEvent: number,
  warmupS = WARMUP_S,
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
async function openLoop(
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

async function round(): Promise<Round> {
  // The bounds first, on their own stand-ins, while nothing else runs.
  const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-wh-anchor-'));
  const emulators = await startEmulators(scratch);
  const dynaliteWritesPerS = await dynaliteAnchor(emulators.dynamoEndpoint, emulators.tableName);
  const fauxqsMsgsPerS = await fauxqsAnchor(emulators.awsEndpoint);
  await emulators.stop();
  rmSync(scratch, { recursive: true, force: true });
  const loopbackPostsPerS = await loopbackAnchor();

  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-wh-'));
  const svc = await spawnService({ DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT' }, 30_000);
  const driver = new Driver(svc);
  const receivers: TestReceiver[] = [];
  const receiver = async (answer?: TestReceiver['answer']) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  const plain = async () => {
    const r = await receiver();
    return throughput(driver, r, await driver.setup([{ scope: 'general', url: r.url }]), 1);
  };
  try {
    const warm = await plain();
    // Open loop at the target rate, plain, then with a hanging receiver on every event (measured after 20 s: see
    // the closed-loop isolation run below). The hanging webhook is deleted afterwards, so the jobs parked behind it
    // end at their next receive instead of weighing on the runs that follow.
    const rs = await receiver();
    const sustainedPlain = await openLoop(
      driver,
      rs,
      await driver.setup([{ scope: 'general', url: rs.url }]),
      targetRate,
      { warmupS: WARMUP_S, durationS: seconds },
    );
    const [hanging2, healthy2] = [await receiver(() => 'hang'), await receiver()];
    const isolated2 = await driver.setup([
      { scope: 'general', url: hanging2.url },
      { scope: 'channel', url: healthy2.url },
    ]);
    const sustainedWithHanging = {
      ...(await openLoop(driver, healthy2, isolated2, targetRate, { warmupS: 20, durationS: seconds })),
      hangingReceived: hanging2.received.length,
      hangingMaxOpen: hanging2.maxOpen(),
    };
    await driver.call('DELETE', `/projects/${isolated2.projectId}/integrations/${isolated2.integrationIds[0]}`);
    const rl = await receiver();
    const halfRate = Math.max(5, Math.round(warm.deliveredPerS / 2));
    const latencyAtHalf = await openLoop(
      driver,
      rl,
      await driver.setup([{ scope: 'general', url: rl.url }]),
      halfRate,
      { warmupS: 0, durationS: seconds },
    );
    const rr = await receiver();
    const latencyAtRate = await openLoop(
      driver,
      rr,
      await driver.setup([{ scope: 'general', url: rr.url }]),
      latencyRate,
      { warmupS: 0, durationS: seconds / 2 },
    );

    const r3 = await receiver();
    const fanout3 = await driver.setup([
      { scope: 'general', url: r3.url },
      { scope: 'channel', url: r3.url },
      { scope: 'channel', url: r3.url },
    ]);
    const throughput3 = await throughput(driver, r3, fanout3, 3);

    // Plain, then the same with a hanging receiver. The hanging run is measured after 20 s, once the jobs parked
    // behind its first stuck attempts have come back (15 s) and its circuit is cycling: the sustained regime.
    const throughput1Again = await plain();
    const [hanging, healthy] = [await receiver(() => 'hang'), await receiver()];
    const isolated = await driver.setup([
      { scope: 'general', url: hanging.url },
      { scope: 'channel', url: healthy.url },
    ]);
    const isolation = {
      ...(await throughput(driver, healthy, isolated, 1, 20)),
      hangingReceived: hanging.received.length,
      hangingMaxOpen: hanging.maxOpen(),
    };

    return {
      anchors: { dynaliteWritesPerS, fauxqsMsgsPerS, loopbackPostsPerS },
      throughput1: warm,
      throughput3,
      latencyAtHalf,
      latencyAtRate,
      throughput1Again,
      isolation,
      sustained: sustainedPlain,
      sustainedWithHanging,
    };
  } finally {
    driver.close();
    await Promise.all(receivers.map((r) => r.close()));
    await stopProcess(svc.child, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const results: Round[] = [];
for (let i = 0; i < rounds; i++) {
  const r = await round();
  results.push(r);
  console.error(`round ${i + 1}/${rounds}: ${JSON.stringify(r)}`);
}

const med = (f: (r: Round) => number) => Math.round(median(results.map(f)) * 100) / 100;
/**
 * What the stand-ins alone would allow, from this round's anchors: a delivery with one webhook costs 6 queue
 * message operations (events: send, receive, delete; deliveries: the same), i.e. 2 messages of the fauxqs anchor
 * (which sends, receives and deletes each message), 1 conditional write, and 2 loopback POSTs (the event posted,
 * the delivery). Times add up: the runner is one process.
 */
const modelPerS = (r: Round) =>
  1 / (2 / r.anchors.fauxqsMsgsPerS + 1 / r.anchors.dynaliteWritesPerS + 2 / r.anchors.loopbackPostsPerS);
const throughputSummary = (f: (r: Round) => Throughput) => ({
  eventsPostedPerS: med((r) => f(r).postedPerS),
  deliveriesPerS: med((r) => f(r).deliveredPerS),
  runnerCpuMsPerDelivery: med((r) => f(r).runnerCpuMsPerDelivery),
  runnerCpuShare: med((r) => f(r).runnerCpuShare),
  /** Deliveries/s if the runner had one core to itself: 1000 / CPU ms per delivery. */
  perFreeCorePerS: med((r) => 1000 / f(r).runnerCpuMsPerDelivery),
  backlogAtEnd: med((r) => f(r).backlogAtEnd),
  drainS: med((r) => f(r).drainS),
});
const openLoopSummary = (f: (r: Round) => OpenLoop) => ({
  offeredPerS: med((r) => f(r).offeredPerS),
  deliveriesPerS: med((r) => f(r).deliveredPerS),
  runnerCpuMsPerDelivery: med((r) => f(r).runnerCpuMsPerDelivery),
  runnerCpuShare: med((r) => f(r).runnerCpuShare),
  backlogAtEnd: med((r) => f(r).backlogAtEnd),
  p50: med((r) => f(r).p50),
  p95: med((r) => f(r).p95),
  p99: med((r) => f(r).p99),
  max: med((r) => f(r).max),
  deliveredShare: med((r) => f(r).deliveredShare),
});
const summary = {
  machine: machine(),
  date: new Date().toISOString(),
  command: `npx tsx bench/webhooks.ts --seconds ${seconds} --rounds ${rounds} --rate ${latencyRate} --target ${targetRate}`,
  anchors: {
    dynaliteConditionalWritesPerS: med((r) => r.anchors.dynaliteWritesPerS),
    fauxqsMessagesPerS: med((r) => r.anchors.fauxqsMsgsPerS),
    loopbackPostsPerS: med((r) => r.anchors.loopbackPostsPerS),
    modelDeliveriesPerS: med(modelPerS),
  },
  throughput1Webhook: {
    ...throughputSummary((r) => r.throughput1),
    shareOfModel: med((r) => r.throughput1.deliveredPerS / modelPerS(r)),
  },
  throughput1WebhookAgain: throughputSummary((r) => r.throughput1Again),
  throughput3Webhooks: throughputSummary((r) => r.throughput3),
  latencyAtHalfSustainedRate: openLoopSummary((r) => r.latencyAtHalf),
  latencyAtRate: openLoopSummary((r) => r.latencyAtRate),
  withHangingReceiver: {
    ...throughputSummary((r) => r.isolation),
    shareOfPlainRunBefore: med((r) => r.isolation.deliveredPerS / r.throughput1Again.deliveredPerS),
    /** Same, in runner CPU per healthy delivery (insensitive to how much of a core the runner got). */
    cpuShareOfPlainRunBefore: med(
      (r) => r.throughput1Again.runnerCpuMsPerDelivery / r.isolation.runnerCpuMsPerDelivery,
    ),
    hangingRequestsOpenAtMost: med((r) => r.isolation.hangingMaxOpen),
  },
  sustainedAtTarget: openLoopSummary((r) => r.sustained),
  sustainedAtTargetWithHangingReceiver: {
    ...openLoopSummary((r) => r.sustainedWithHanging),
    /** Healthy deliveries/s ÷ the plain open-loop run's deliveries/s at the same offered rate. */
    shareOfPlain: med((r) => r.sustainedWithHanging.deliveredPerS / r.sustained.deliveredPerS),
    hangingRequestsOpenAtMost: med((r) => r.sustainedWithHanging.hangingMaxOpen),
  },
};
console.log(JSON.stringify(summary, null, 2));
process.exit(0);
