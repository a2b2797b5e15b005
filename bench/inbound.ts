/**
 * Channel ingress (bench/history/2026-11-channel-ingress.md): a provider report accepted (the inbound function's 200) → the event received
 * by the customer's webhook, at a fixed rate of reports (open loop: one Twilio incoming-SMS webhook every 1/rate s,
 * whatever the answers do), through the whole local service: the public inbound function, the `inbound` queue and
 * worker, the `events` queue, fan-out and delivery to a real HTTP receiver. Each report has its own MessageSid, so
 * each is one `message.received`; requests are signed with Twilio's own library beforehand. The service runs as
 * `npm start` does, in a child process; this process only sends the reports and receives the events.
 * Throughput (`--concurrency C --count N`): closed loop instead, C senders each posting its next report once the last
 * was answered, so the service takes reports as fast as it acknowledges them without a pile of open requests;
 * `throughput` is the events received per second, from the first report sent to the last event received. On a shared
 * machine that swings with the neighbours' load; `service CPU` (the service process's user + system time over the same
 * window, all its threads) per report does much less, and is what bounds the throughput once the cores are busy.
 * Run: npx tsx bench/inbound.ts [--rate 100] [--seconds 10] [--warmup 3] [--contacts 100] [--concurrency 16 --count 3000]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import twilio from 'twilio';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { adminApi, machine } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    // How many contacts write (each its own conversation, so its own order key). 1: every report in
    // one conversation, the worst case for ordering (one FIFO group, fanned out one batch after another).
    contacts: { type: 'string', default: '100' },
    concurrency: { type: 'string' },
    count: { type: 'string', default: '3000' },
  },
});
const closed = values.concurrency === undefined ? undefined : Number(values.concurrency);
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const contacts = Number(values.contacts);

const received = new Map<string, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (event.type === 'message.received' && !received.has(event.data.providerMessageId))
      received.set(event.data.providerMessageId, at);
    res.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1');
await new Promise((r) => receiver.once('listening', r));

const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-inbound-'));
// The service in a process of its own (as `npm start` runs it): the load and the receiver here do not share its loops.
const svc = await spawnService({ DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT' }, 30_000);
const admin = adminApi(svc);
const project = await admin('POST', '/projects', { companyId: 1042, name: 'bench' });
await admin('POST', `/projects/${project.projectId}/integrations`, {
  product: 'webhook',
  scope: 'general',
  url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  eventTypes: ['message.received'],
});
const authToken = 'bench-auth-token';
const channel = await admin('POST', `/projects/${project.projectId}/channels`, {
  type: 'sms',
  name: 'bench',
  address: '+15005550006',
  provider: { kind: 'twilio', accountSid: 'ACbench', authToken },
});
const url = `${svc.baseUrl}/inbound/twilio/${channel.channelId}`;

/** Signed requests, prepared before the clock starts (Twilio's signer, as Twilio computes it). */
function prepare(count: number, prefix: string) {
  return Array.from({ length: count }, (_, i) => {
    const sid = `SM${prefix}${String(i).padStart(30, '0')}`;
    const params = {
      AccountSid: 'ACbench',
      ApiVersion: '2010-04-01',
      Body: `Reply number ${i}`,
      From: `+55119${String(88887777 + (i % contacts)).padStart(8, '0')}`,
      MessageSid: sid,
      NumMedia: '0',
      SmsStatus: 'received',
      To: '+15005550006',
    };
    return {
      sid,
      body: new URLSearchParams(params).toString(),
      signature: twilio.getExpectedTwilioSignature(authToken, url, params),
    };
  });
}

/**
 * Fires the requests open loop at `rate`/s, or closed loop with `closed` senders; accepted time (200 received) per
 * sid, and failures.
 */
async function run(requests: ReturnType<typeof prepare>) {
  const accepted = new Map<string, number>();
  const httpMs: number[] = [];
  let failed = 0;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  let next = 0;
  const sender = async () => {
    while (next < requests.length) await post(next++);
  };
  if (closed !== undefined) pending.push(...Array.from({ length: closed }, sender));
  else
    for (let i = 0; i < requests.length; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(post(i));
    }
  function post(i: number): Promise<void> {
    const { sid, body, signature } = requests[i]!;
    const sentAt = performance.now();
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body,
    }).then(
      async (res) => {
        await res.arrayBuffer();
        const at = performance.now();
        if (res.status === 200) {
          accepted.set(sid, at);
          httpMs.push(at - sentAt);
        } else failed++;
      },
      () => void failed++,
    );
  }
  await Promise.all(pending);
  return { accepted, httpMs, failed, start, sendSeconds: (performance.now() - start) / 1000 };
}

async function settle(sids: string[], timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (sids.some((s) => !received.has(s)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : Number.NaN;
};

/** CPU seconds the service process has used so far (Linux: utime + stime of /proc/<pid>/stat, all its threads). */
function serviceCpuSeconds(): number {
  const stat = readFileSync(`/proc/${svc.child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const warm = prepare(Math.round(rate * warmup), 'w');
await run(warm);
await settle(warm.map((w) => w.sid));

const load = loadavg()[0]!.toFixed(1);
// What the idle service burns (pollers, timers), over 3 s, so a slow run is not charged for its extra wall time.
const idleFrom = { cpu: serviceCpuSeconds(), at: performance.now() };
await new Promise((r) => setTimeout(r, 3_000));
const idlePerSecond = (serviceCpuSeconds() - idleFrom.cpu) / ((performance.now() - idleFrom.at) / 1000);
const cpuBefore = serviceCpuSeconds();
const measured = prepare(closed === undefined ? Math.round(rate * seconds) : Number(values.count), 'm');
const result = await run(measured);
await settle(measured.map((m) => m.sid));
const cpu = serviceCpuSeconds() - cpuBefore;
const workCpu = cpu - idlePerSecond * ((performance.now() - result.start) / 1000);
const latencies = measured
  .filter((m) => result.accepted.has(m.sid) && received.has(m.sid))
  .map((m) => received.get(m.sid)! - result.accepted.get(m.sid)!);
const lost = measured.filter((m) => result.accepted.has(m.sid) && !received.has(m.sid)).length;

const f = (x: number) => x.toFixed(0);
const lastEvent = Math.max(...measured.filter((m) => received.has(m.sid)).map((m) => received.get(m.sid)!));
const throughput = latencies.length / ((lastEvent - result.start) / 1000);
console.log(`machine: ${machine()}; load average at start of window: ${load}`);
console.log(
  `date: ${new Date().toISOString()}; command: npx tsx bench/inbound.ts --rate ${rate} --seconds ${seconds} --warmup ${warmup} --contacts ${contacts}${closed === undefined ? '' : ` --concurrency ${closed} --count ${values.count}`}`,
);
console.log(
  `${measured.length} reports ${closed === undefined ? `at ${rate}/s` : `by ${closed} senders`} (sent over ${result.sendSeconds.toFixed(1)} s), ${result.accepted.size} accepted, ${result.failed} refused/failed, ${lost} accepted but never received`,
);
console.log(`inbound request (send → 200): p50 ${f(pct(result.httpMs, 50))} ms, p99 ${f(pct(result.httpMs, 99))} ms`);
console.log(
  `throughput: ${latencies.length} events in ${((lastEvent - result.start) / 1000).toFixed(1)} s = ${throughput.toFixed(1)} events/s (first report sent → last event received)`,
);
console.log(
  `service CPU: ${cpu.toFixed(1)} s for ${measured.length} reports = ${((cpu * 1000) / measured.length).toFixed(2)} ms a report (until the last event); less the idle service's ${(idlePerSecond * 1000).toFixed(0)} ms/s: ${((workCpu * 1000) / measured.length).toFixed(2)} ms a report`,
);
console.log(
  `accepted → event received: p50 ${f(pct(latencies, 50))} ms, p95 ${f(pct(latencies, 95))} ms, p99 ${f(pct(latencies, 99))} ms, max ${f(Math.max(...latencies))} ms`,
);

await stopProcess(svc.child, 'SIGTERM');
receiver.close();
rmSync(dataDir, { recursive: true, force: true });
