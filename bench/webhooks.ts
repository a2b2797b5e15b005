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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulators } from '#local/emulators.ts';
import { startReceiver, type TestReceiver } from '#test/e2e/webhooks-support.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { machine, median } from './lib/harness.ts';
import { dynaliteAnchor, fauxqsAnchor, loopbackAnchor } from './lib/stand-in-bounds.ts';
import { Driver, type OpenLoop, openLoop, type Throughput, throughput } from './lib/webhook-loads.ts';

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
const measured = { seconds, warmupS: WARMUP_S };

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

async function round(): Promise<Round> {
  // The bounds first, on their own stand-ins, while nothing else runs.
  const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-wh-anchor-'));
  const emulators = await startEmulators(scratch);
  const dynaliteWritesPerS = await dynaliteAnchor(emulators.dynamoEndpoint, emulators.tableName, seconds);
  const fauxqsMsgsPerS = await fauxqsAnchor(emulators.awsEndpoint, seconds);
  await emulators.stop();
  rmSync(scratch, { recursive: true, force: true });
  const loopbackPostsPerS = await loopbackAnchor(seconds);

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
    return throughput(driver, r, await driver.setup([{ scope: 'general', url: r.url }]), 1, measured);
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
    const throughput3 = await throughput(driver, r3, fanout3, 3, measured);

    // Plain, then the same with a hanging receiver. The hanging run is measured after 20 s, once the jobs parked
    // behind its first stuck attempts have come back (15 s) and its circuit is cycling: the sustained regime.
    const throughput1Again = await plain();
    const [hanging, healthy] = [await receiver(() => 'hang'), await receiver()];
    const isolated = await driver.setup([
      { scope: 'general', url: hanging.url },
      { scope: 'channel', url: healthy.url },
    ]);
    const isolation = {
      ...(await throughput(driver, healthy, isolated, 1, { seconds, warmupS: 20 })),
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

const _sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
