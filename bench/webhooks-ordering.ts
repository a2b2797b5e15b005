/**
 * Ordered webhooks (bench/history/2026-11-webhooks-for-chat-back-ends.md), through the local runner (`local/main.ts` in a process of its own, its own
 * dynalite and fauxqs):
 *
 *  - `--events` events (10,000) over `--conversations` conversations (500), posted on the admin events route by 32
 *    producers, each conversation's events one after another (so the accepted order is the sequence number), to a
 *    receiver that answers 500 to the first attempt of `--fail` (10 %) of the events (chosen by a hash of the event
 *    id) and 200 to everything else;
 *  - once to a webhook with `ordering: "conversation"`, once to one with `ordering: "none"`, in the same service, the
 *    same way (which goes first alternates between rounds);
 *  - for each: the out-of-order successful deliveries at the receiver (a 200 for a sequence number lower than one
 *    already answered 200 in its conversation), duplicates, deliveries/s from the first post to the last 200, the
 *    runner's CPU per successful delivery (from /proc);
 *  - beside them, in this process: the cost of signing a delivery with HMAC (`v1`) and with ed25519 (`v1a`).
 *
 * The retry schedule is short (WEBHOOK_RETRY_SCHEDULE=0.5,1,2,4,8) so a held-back key waits about half a second, as a
 * receiver back up after a blip would see it. Reports each round and the medians.
 *
 * Run: npx tsx bench/webhooks-ordering.ts [--events 10000] [--conversations 500] [--fail 0.1] [--rounds 3]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSigningKey } from '#shared/integrations/index.ts';
import { signPayload, signPayloadEd25519 } from '#shared/webhooks/index.ts';
import { startReceiver, type TestReceiver } from '#test/e2e/webhooks-support.ts';
import { type ServiceProcess, spawnService, stopProcess } from '#test/support/process.ts';
import { keepAliveAdminApi, machine, median } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    conversations: { type: 'string', default: '500' },
    fail: { type: 'string', default: '0.1' },
    rounds: { type: 'string', default: '3' },
    producers: { type: 'string', default: '32' },
  },
});
const EVENTS = Number(values.events);
const CONVERSATIONS = Number(values.conversations);
const FAIL_SHARE = Number(values.fail);
const ROUNDS = Number(values.rounds);
const PRODUCERS = Number(values.producers);

interface Run {
  ordering: 'conversation' | 'none';
  postedPerS: number;
  deliveredPerS: number;
  seconds: number;
  delivered: number;
  outOfOrder: number;
  conversationsOutOfOrder: number;
  duplicates: number;
  firstAttemptsFailed: number;
  runnerCpuMsPerDelivery: number;
}

/** Whether the first attempt of this event is answered 500: a stable tenth of the events, by a hash of the id. */
function failsFirst(eventId: string): boolean {
  return createHash('sha256').update(eventId).digest().readUInt32BE(0) / 2 ** 32 < FAIL_SHARE;
}

class Driver {
  private readonly adminApi: ReturnType<typeof keepAliveAdminApi>;
  constructor(private readonly svc: ServiceProcess) {
    this.adminApi = keepAliveAdminApi(svc);
  }

  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    return this.adminApi.call(method, path, body);
  }

  runnerCpuSeconds(): number {
    const fields = readFileSync(`/proc/${this.svc.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  close() {
    this.adminApi.close();
  }
}

async function run(driver: Driver, ordering: Run['ordering']): Promise<Run> {
  // Per conversation: the sequence numbers answered 200, in the order the receiver answered them.
  const seen = new Set<string>();
  const succeeded = new Set<string>();
  const lastOk = new Map<string, number>();
  let outOfOrder = 0;
  let duplicates = 0;
  let firstAttemptsFailed = 0;
  let lastOkAt = 0;
  const outOfOrderConversations = new Set<string>();
  const receiver: TestReceiver = await startReceiver((delivery) => {
    const id = String(delivery.headers['webhook-id']);
    const { conversationId, seq } = delivery.json.data as { conversationId: string; seq: number };
    if (!seen.has(id)) {
      seen.add(id);
      if (failsFirst(id)) {
        firstAttemptsFailed++;
        return 500;
      }
    }
    if (succeeded.has(id)) duplicates++;
    succeeded.add(id);
    const last = lastOk.get(conversationId) ?? -1;
    if (seq < last) {
      outOfOrder++;
      outOfOrderConversations.add(conversationId);
    } else lastOk.set(conversationId, seq);
    lastOkAt = performance.now();
    return 200;
  });
  try {
    const project = (await driver.call('POST', '/projects', { companyId: 1042, name: `order-${ordering}` })).json;
    const channel = (
      await driver.call('POST', `/projects/${project.projectId}/channels`, {
        type: 'sms',
        name: 'bench',
        address: '+5511999990000',
      })
    ).json;
    const hook = await driver.call('POST', `/projects/${project.projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiver.url,
      ordering,
    });
    if (hook.status !== 201) throw new Error(`webhook create failed: ${JSON.stringify(hook.json)}`);

    const perConversation = Math.ceil(EVENTS / CONVERSATIONS);
    const cpu0 = driver.runnerCpuSeconds();
    const t0 = performance.now();
    let posted = 0;
    await Promise.all(
      Array.from({ length: PRODUCERS }, async (_, p) => {
        const mine = Array.from({ length: CONVERSATIONS }, (_, c) => c).filter((c) => c % PRODUCERS === p);
        // Round robin over this producer's conversations: each one's events in sequence, never two at once.
        for (let seq = 0; seq < perConversation; seq++) {
          for (const c of mine) {
            if (seq * CONVERSATIONS + c >= EVENTS) continue;
            const res = await driver.call('POST', `/projects/${project.projectId}/events`, {
              channelId: channel.channelId,
              type: 'message.received',
              data: { conversationId: `conv_${c}`, seq, text: 'Olá! Where is my order #12345?' },
            });
            if (res.status !== 202) throw new Error(`event not accepted: ${res.status} ${JSON.stringify(res.json)}`);
            posted++;
          }
        }
      }),
    );
    const postedS = (performance.now() - t0) / 1000;
    const deadline = performance.now() + 600_000;
    while (succeeded.size < posted && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (succeeded.size < posted) throw new Error(`only ${succeeded.size} of ${posted} delivered`);
    const cpu1 = driver.runnerCpuSeconds();
    const seconds = (lastOkAt - t0) / 1000;
    return {
      ordering,
      postedPerS: posted / postedS,
      deliveredPerS: succeeded.size / seconds,
      seconds,
      delivered: succeeded.size,
      outOfOrder,
      conversationsOutOfOrder: outOfOrderConversations.size,
      duplicates,
      firstAttemptsFailed,
      runnerCpuMsPerDelivery: ((cpu1 - cpu0) * 1000) / succeeded.size,
    };
  } finally {
    await receiver.close();
  }
}

/** Microseconds per signature over a typical 1 KB envelope, median of 5 batches of 5,000. */
function signingCost() {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const key = generateSigningKey();
  const body = JSON.stringify({
    id: 'evt_01hq3x9k2m7c4v8b6n5s',
    type: 'message.received',
    data: { text: 'x'.repeat(900), conversationId: 'conv_1' },
  });
  const time = (fn: (i: number) => string) => {
    const batches: number[] = [];
    for (let b = 0; b < 5; b++) {
      const t = performance.now();
      for (let i = 0; i < 5_000; i++) fn(i);
      batches.push(((performance.now() - t) * 1000) / 5_000);
    }
    return median(batches);
  };
  time((i) => signPayload(secret, `evt_${i}`, 1_700_000_000, body)); // warm-up
  const hmacUs = time((i) => signPayload(secret, `evt_${i}`, 1_700_000_000, body));
  const ed25519Us = time((i) => signPayloadEd25519(key, `evt_${i}`, 1_700_000_000, body));
  return { hmacUs, ed25519Us };
}

const fmt = (r: Run) =>
  `${r.ordering.padEnd(12)} delivered ${r.delivered} in ${r.seconds.toFixed(1)} s = ${r.deliveredPerS.toFixed(0)}/s ` +
  `(posted ${r.postedPerS.toFixed(0)}/s), out of order ${r.outOfOrder} in ${r.conversationsOutOfOrder} conversations, ` +
  `duplicates ${r.duplicates}, first attempts failed ${r.firstAttemptsFailed}, runner CPU ${r.runnerCpuMsPerDelivery.toFixed(2)} ms/delivery`;

async function main() {
  console.log(`machine: ${machine()}; ${new Date().toISOString()}`);
  console.log(`events ${EVENTS} over ${CONVERSATIONS} conversations, ${FAIL_SHARE * 100} % of first attempts fail`);
  const signing = signingCost();
  console.log(
    `signing a 1 KB delivery: HMAC-SHA256 (v1) ${signing.hmacUs.toFixed(1)} µs, ed25519 (v1a) ${signing.ed25519Us.toFixed(1)} µs`,
  );
  const all: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-order-'));
    const svc = await spawnService(
      { DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT', WEBHOOK_RETRY_SCHEDULE: '0.5,1,2,4,8' },
      30_000,
    );
    const driver = new Driver(svc);
    try {
      const modes: Run['ordering'][] = round % 2 === 0 ? ['conversation', 'none'] : ['none', 'conversation'];
      for (const mode of modes) {
        const r = await run(driver, mode);
        all.push(r);
        console.log(`round ${round + 1}: ${fmt(r)}`);
      }
    } finally {
      driver.close();
      await stopProcess(svc.child, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const summary = (ordering: Run['ordering']) => {
    const runs = all.filter((r) => r.ordering === ordering);
    return {
      deliveredPerS: median(runs.map((r) => r.deliveredPerS)),
      outOfOrder: median(runs.map((r) => r.outOfOrder)),
      cpu: median(runs.map((r) => r.runnerCpuMsPerDelivery)),
    };
  };
  const [ordered, unordered] = [summary('conversation'), summary('none')];
  console.log(
    `median ordered: ${ordered.deliveredPerS.toFixed(0)}/s, ${ordered.outOfOrder} out of order, ${ordered.cpu.toFixed(2)} ms CPU/delivery`,
  );
  console.log(
    `median unordered: ${unordered.deliveredPerS.toFixed(0)}/s, ${unordered.outOfOrder} out of order, ${unordered.cpu.toFixed(2)} ms CPU/delivery`,
  );
  console.log(
    `ordered / unordered throughput: ${((100 * ordered.deliveredPerS) / unordered.deliveredPerS).toFixed(0)} %`,
  );
}

await main();
