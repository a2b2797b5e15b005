/**
 * Messaging at volume, against a Twilio double that notes when each message reached it (by its body, so a message
 * sent twice is seen):
 *  1. a 1,000-item batch answered (202): median of `--runs` batches (on channels paced at 1 a second: sending the
 *     batches already answered takes next to nothing from the next one);
 *  2. `--messages` (default 10,000) queued in batches of 1,000 on a channel paced at `--pace` a second, drained: the
 *     time from the first to the last arrival against (messages - 1) / pace, lost and sent twice counted. The default
 *     pace, 80, is the highest of the channels' defaults (WhatsApp's: pace.ts), the pace a campaign drains at unless
 *     its channel asks otherwise; a higher one (200) measures what this machine can send, not the pacing;
 *     the busiest sliding second both at the double and as the service sent them (its own send stamps,
 *     ./lib/send-stamps.mjs: the double shares this process, whose event loop can bunch arrivals on a loaded machine),
 *     and where the time beyond the pace went (its first seconds, its last, between: ./lib/send-stamps.ts);
 *  3. 1,000 scheduled sends spread over one minute (a channel paced well above): each arrival's lateness behind its
 *     `sendAt`, p50 / p99 / max, lost and sent twice.
 * `npx tsx bench/volume.ts [--messages 10000] [--pace 80] [--runs 3] [--parts 1,2,3] [--cwd <checkout>]
 * [--cpu-prof <dir>] [--profile <dir>]`: `--cwd` runs the service of another checkout (a same-run anchor: a detached
 * worktree at the base commit), `--parts` picks the measurements, `--cpu-prof` writes the service's V8 CPU profiles
 * (every thread) there, `--profile` runs the service on one thread (LOCAL_THREADS=0) and profiles part 2 alone (its
 * batches and their drain), then prints its self time per module and function and the stand-ins' calls, per message
 * sent; `--count-calls` counts the service's AWS calls by operation and item kind during part 2
 * (./lib/wire-counter.mjs, every thread), per message sent. The last lines compare each figure with the issue's
 * target. Writes nothing else: the numbers go to bench/history/ by hand (with KEEP_STAMPS=1 set, the service's send
 * stamps stay on disk, and their path is printed).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { profileReport } from './lib/cpu-profile.ts';
import { busiestSecond } from '#test/support/busiest-second.ts';
import { readSendStamps, sendView } from './lib/send-stamps.ts';
import { callsPer, wireCounts } from './lib/wire-counts.ts';
import { describeQueue, missingState, outboundQueueState, settled } from './lib/volume-state.ts';
import { adminApi, argValue, machine, median, numberArg, processCpuMs } from './lib/harness.ts';

const MESSAGES = numberArg('messages', 10_000);
const PACE = numberArg('pace', 80);
const RUNS = numberArg('runs', 3);
const PARTS = new Set((argValue('parts') ?? '1,2,3').split(',').map(Number));
const CWD = argValue('cwd');
const PROFILE_DIR = argValue('cpu-prof');
const TOGGLED_DIR = argValue('profile');
const COUNT_DIR = process.argv.includes('--count-calls')
  ? mkdtempSync(join(tmpdir(), 'switchboard-volume-calls-'))
  : '';
// The profiler hook writes into it, and a profile it cannot write would never be reported.
if (TOGGLED_DIR) mkdirSync(TOGGLED_DIR, { recursive: true });

const arrivals = new Map<string, number[]>();
const double = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const text = new URLSearchParams(body).get('Body') ?? '';
    const list = arrivals.get(text) ?? [];
    list.push(Date.now());
    arrivals.set(text, list);
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid: `SM${arrivals.size}` }));
  });
});
double.listen(0, '127.0.0.1');
await new Promise((r) => double.once('listening', r));
const doubleUrl = `http://127.0.0.1:${(double.address() as AddressInfo).port}`;

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-volume-'));
const toggle = new URL('./lib/profile-toggle.mjs', import.meta.url).pathname;
// The service's own send times (./lib/send-stamps.mjs, loaded in each of its threads; in the main thread too when it
// runs alone): when each request to the double left it.
const stamper = new URL('./lib/send-stamps.mjs', import.meta.url).pathname;
const stampsDir = mkdtempSync(join(tmpdir(), 'switchboard-volume-stamps-'));
const stampsFile = join(stampsDir, 'sends.tsv');
const svc = await spawnService(
  {
    DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    LOCAL_THREAD_IMPORT: stamper,
    SEND_STAMPS_HOST: new URL(doubleUrl).host,
    SEND_STAMPS_FILE: stampsFile,
    ...(TOGGLED_DIR ? { LOCAL_THREADS: '0', PROFILE_DIR: TOGGLED_DIR } : {}),
    ...(COUNT_DIR ? { WIRE_COUNT_DIR: COUNT_DIR, WIRE_COUNT_DETAIL: '1' } : {}),
  },
  120_000,
  {
    ...(CWD ? { cwd: CWD } : {}),
    nodeArgs: [
      '--import',
      stamper,
      ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
      ...(TOGGLED_DIR ? ['--import', toggle] : []),
      ...(COUNT_DIR ? ['--import', new URL('./lib/wire-counter.mjs', import.meta.url).href] : []),
    ],
  },
);
const admin = adminApi(svc);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

let companyId = 0;
async function channel(perSecond: number) {
  const created = await admin('POST', '/projects', { companyId: ++companyId, name: 'volume', monthlyBotCredits: 0 });
  const projectId = created.projectId as string;
  if (!projectId) throw new Error(`project: ${JSON.stringify(created)}`);
  const ch = await admin('POST', `/projects/${projectId}/channels`, {
    type: 'sms',
    name: 'volume',
    address: '+15005550099',
    provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'x', baseUrl: doubleUrl },
    pace: { perSecond },
  });
  if (!ch.channelId) throw new Error(`channel: ${JSON.stringify(ch)}`);
  const token = (
    await admin('POST', `/projects/${projectId}/integrations`, { product: 'custom', channelId: ch.channelId })
  ).token as string;
  return { channelId: ch.channelId as string, token };
}

/** Each body's message id, from the batch answers (the bench's bodies are unique). */
const idOfBody = new Map<string, string>();

async function postBatch(token: string, messages: { body: string }[]) {
  const started = performance.now();
  const res = await fetch(`${svc.baseUrl}/api/integration/generic/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages }),
  });
  const body = (await res.json()) as { batchId: string; items: { status: string; messageId?: string }[] };
  if (res.status !== 202) throw new Error(`batch: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  for (const [i, item] of body.items.entries()) if (item.messageId) idOfBody.set(messages[i]!.body, item.messageId);
  return {
    ms: performance.now() - started,
    accepted: body.items.filter((i) => i.status !== 'refused').length,
    batchId: body.batchId,
  };
}

/** The batches' items by status as the service counts them now (`GET /api/integration/batches/{batchId}`). */
async function batchCounts(token: string, batchIds: string[]): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const batchId of batchIds) {
    const res = await fetch(`${svc.baseUrl}/api/integration/batches/${batchId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { counts } = (await res.json()) as { counts: Record<string, number> };
    for (const [status, n] of Object.entries(counts)) totals[status] = (totals[status] ?? 0) + n;
  }
  return totals;
}

/**
 * Waits until every one of `bodies` reached the double, or `timeoutMs`. What is still missing then is explained (each
 * message as the service holds it, the outbound queue's jobs) and waited for again while the outbound queue holds
 * work, up to `graceMs`: a message that arrives then was late (the wait was too short), one that never does is lost.
 */
async function drained(bodies: readonly string[], token: string, timeoutMs: number, graceMs = 180_000) {
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const missing = () => bodies.filter((b) => !arrivals.has(b));
  const deadline = Date.now() + timeoutMs;
  while (missing().length && Date.now() < deadline) await wait(500);
  // A moment more: anything sent twice arrives too.
  await wait(3000);
  const notes: string[] = [];
  const first = missing();
  if (first.length) {
    notes.push(
      `  after the wait (${(timeoutMs / 1000).toFixed(0)} s): ${describeQueue(await outboundQueueState(svc.baseUrl))}`,
    );
    const stated = first.map((body) => ({ body, messageId: idOfBody.get(body) }));
    notes.push(...(await missingState(svc, token, stated)));
    const graceEnds = Date.now() + graceMs;
    for (;;) {
      const q = await outboundQueueState(svc.baseUrl);
      if (!missing().length || Date.now() > graceEnds || !(q.visible + q.inFlight + q.delayed)) break;
      await wait(1000);
    }
    await wait(3000);
    const still = missing();
    notes.push(
      `  ${first.length - still.length} of the ${first.length} arrived later, within ${(graceMs / 1000).toFixed(0)} s more ` +
        `while the outbound queue held work; ${describeQueue(await outboundQueueState(svc.baseUrl))}`,
    );
    if (still.length)
      notes.push(
        ...(await missingState(
          svc,
          token,
          still.map((body) => ({ body, messageId: idOfBody.get(body) })),
        )),
      );
  }
  const mine = bodies.flatMap((b) => {
    const times = arrivals.get(b);
    return times ? [{ key: b, times }] : [];
  });
  return {
    lost: bodies.length - mine.length,
    late: first.length - (bodies.length - mine.length),
    notes,
    twice: mine.filter(({ times }) => times.length > 1).length,
    times: mine.map(({ key, times }) => ({ key, at: times[0]! })),
  };
}

/** SIGUSR2 to the service's profiler hook (bench/lib/profile-toggle.mjs); resolves once it answered. */
async function toggleProfiler(what: 'profile started' | 'profile written'): Promise<string> {
  const count = () => svc.output().split(what).length - 1;
  const before = count();
  svc.child.kill('SIGUSR2');
  while (count() === before) await new Promise((r) => setTimeout(r, 20));
  return [...svc.output().matchAll(/profile written (\S+)/g)].at(-1)?.[1] ?? '';
}

/** The issue's targets, each with what this run measured. */
const targets: string[] = [];
const target = (what: string, measured: string, met: boolean) =>
  targets.push(`  ${met ? 'met    ' : 'NOT MET'}  ${what}: ${measured}`);

try {
  const lines: string[] = [
    `machine: ${machine()}; load before: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ];
  if (PARTS.has(1)) {
    if (TOGGLED_DIR) await toggleProfiler('profile started');
    const cpu1 = processCpuMs(svc.child.pid!);
    // 1. A batch of 1,000 answered.
    const answers: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Paced at 1 a second: the batches measured after the first are not slowed by the sending of the ones before.
      const ch = await channel(1);
      const messages = Array.from({ length: 1000 }, (_, i) => ({ to: '+5511988880000', body: `answer ${run} ${i}` }));
      answers.push((await postBatch(ch.token, messages)).ms);
    }
    lines.push(
      `1,000-item batch answered: median ${median(answers).toFixed(0)} ms (runs: ${answers.map((a) => a.toFixed(0)).join(', ')})`,
    );
    target(
      'a 1,000-item batch answered within 2 s',
      `median ${median(answers).toFixed(0)} ms`,
      median(answers) <= 2000,
    );
    lines.push(`  service CPU: ${((processCpuMs(svc.child.pid!) - cpu1) / 1000).toFixed(1)} s`);
    if (TOGGLED_DIR)
      lines.push(...profileReport(await toggleProfiler('profile written'), RUNS * 1000, 'item answered'));
  }
  if (PARTS.has(2)) {
    lines.push(`${MESSAGES} at ${PACE}/s:`, await settled(svc.baseUrl, 300_000));
    if (TOGGLED_DIR) await toggleProfiler('profile started');
    const cpu2 = processCpuMs(svc.child.pid!);
    const calls2 = COUNT_DIR ? wireCounts(COUNT_DIR) : undefined;
    // 2. Drain at the pace.
    const paced = await channel(PACE);
    const batchIds: string[] = [];
    for (let start = 0; start < MESSAGES; start += 1000) {
      const messages = Array.from({ length: Math.min(1000, MESSAGES - start) }, (_, i) => ({
        to: '+5511988880000',
        body: `pace ${start + i}`,
      }));
      batchIds.push((await postBatch(paced.token, messages)).batchId);
    }
    const drain = await drained(
      Array.from({ length: MESSAGES }, (_, i) => `pace ${i}`),
      paced.token,
      (MESSAGES / PACE) * 3_000 + 120_000,
    );
    // The drain's time counts what arrived within the first wait only (a late one would stretch it).
    const ats = drain.times.map((t) => t.at);
    const took = (Math.max(...ats) - Math.min(...ats)) / 1000;
    const ideal = (MESSAGES - 1) / PACE;
    const worstSecond = busiestSecond(ats);
    const sent2 = sendView(
      stampsFile,
      arrivals,
      Array.from({ length: MESSAGES }, (_, i) => `pace ${i}`),
      PACE,
    );
    lines.push(
      `${MESSAGES} at ${PACE}/s: drained in ${took.toFixed(1)} s against ${ideal.toFixed(1)} s (${(((took - ideal) / ideal) * 100).toFixed(1)} %), ` +
        `busiest second ${worstSecond} (at the double), lost ${drain.lost}, arrived after the wait ${drain.late}, sent twice ${drain.twice}`,
      sent2.line,
      ...drain.notes,
    );
    // What the service says of them: a message the provider never got is still queued, or failed with its reason.
    const counts = await batchCounts(paced.token, batchIds);
    lines.push(
      `  the batches' items by status: ${Object.entries(counts)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
    const cpuMs = processCpuMs(svc.child.pid!) - cpu2;
    const sent = MESSAGES - drain.lost;
    lines.push(
      `  service CPU: ${(cpuMs / 1000).toFixed(1)} s, ${sent ? (cpuMs / sent).toFixed(1) : '-'} ms per message sent`,
    );
    if (TOGGLED_DIR) lines.push(...profileReport(await toggleProfiler('profile written'), Math.max(1, sent)));
    // The counters write each second.
    if (calls2) await new Promise((r) => setTimeout(r, 1_500));
    if (calls2) lines.push(...callsPer(calls2, wireCounts(COUNT_DIR), sent));
    const over = ((took - ideal) / ideal) * 100;
    target(
      `${MESSAGES} messages drained at ${PACE}/s within 5 % of ${ideal.toFixed(1)} s`,
      `${took.toFixed(1)} s (${over >= 0 ? '+' : ''}${over.toFixed(1)} %)`,
      drain.lost === 0 && Math.abs(over) <= 5,
    );
    // The pace as promised: no sliding second holds more than `perSecond` sends, counted when each request's bytes
    // were handed to the kernel (the service's own stamps). The slots let a send through at most once a window
    // (pace.ts: a slot's stamps 1,010 ms apart, a send leaving within 10 ms of its stamp, asked as its bytes leave);
    // the double's count, in this loaded process, also holds its own event loop's jitter.
    target(
      `no second above the pace (as the service sent them: at most ${PACE})`,
      `busiest second ${sent2.busiest} (at the double, in this loaded process: ${worstSecond})`,
      sent2.busiest <= PACE,
    );
    target(
      'drained: 0 lost, 0 sent twice',
      `lost ${drain.lost}, sent twice ${drain.twice}`,
      !drain.lost && !drain.twice,
    );
  }
  if (PARTS.has(3)) {
    lines.push('1,000 schedules:', await settled(svc.baseUrl, 300_000));
    const cpu3 = processCpuMs(svc.child.pid!);
    // 3. 1,000 schedules over one minute.
    const scheduled = await channel(500);
    // Far enough ahead that the last of the 1,000 is still over a minute away when it is posted on a loaded machine.
    const base = Date.now() + 150_000;
    const due = new Map<string, number>();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 1000; i++) {
      const sendAt = new Date(base + i * 60).toISOString();
      due.set(`sched ${i}`, Date.parse(sendAt));
      // The project's sends a second are limited (100): a faster service meets the limit, so a 429 waits and retries.
      const post = async (): Promise<void> => {
        const r = await fetch(`${svc.baseUrl}/api/integration/generic`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scheduled.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ to: '+5511988880000', body: `sched ${i}`, sendAt }),
        });
        if (r.status === 429) {
          await r.text();
          await new Promise((w) => setTimeout(w, 1000 * Number(r.headers.get('retry-after') ?? 1)));
          return post();
        }
        if (r.status !== 202) throw new Error(`schedule: ${r.status} ${await r.text()}`);
        idOfBody.set(`sched ${i}`, ((await r.json()) as { messageId: string }).messageId);
      };
      sends.push(post());
      if (sends.length >= 20) await Promise.all(sends.splice(0));
    }
    await Promise.all(sends);
    const fired = await drained(
      Array.from({ length: 1000 }, (_, i) => `sched ${i}`),
      scheduled.token,
      240_000,
    );
    const late = fired.times.map((t) => t.at - due.get(t.key)!);
    lines.push(
      `1,000 schedules over a minute: late p50 ${pct(late, 0.5)} ms, p99 ${pct(late, 0.99)} ms, max ${Math.max(...late)} ms, ` +
        `early ${late.filter((l) => l < 0).length}, lost ${fired.lost}, arrived after the wait ${fired.late}, sent twice ${fired.twice}`,
      ...fired.notes,
    );
    const stamps = readSendStamps(stampsFile);
    const sentLate = [...due].flatMap(([body, at]) => {
      const sent = stamps.get(body)?.[0];
      return sent === undefined ? [] : [sent - at];
    });
    if (sentLate.length)
      lines.push(
        `  late as the service sent them (${sentLate.length}): p50 ${pct(sentLate, 0.5)} ms, p99 ${pct(sentLate, 0.99)} ms, max ${Math.max(...sentLate)} ms`,
      );
    lines.push(`  service CPU: ${((processCpuMs(svc.child.pid!) - cpu3) / 1000).toFixed(1)} s`);
    target(
      '1,000 schedules fire within 1 s of their time at p99',
      `p99 ${pct(late, 0.99)} ms`,
      pct(late, 0.99) <= 1000,
    );
    target(
      'schedules: none early, 0 lost, 0 sent twice',
      `early ${late.filter((l) => l < 0).length}, lost ${fired.lost}, sent twice ${fired.twice}`,
      !late.some((l) => l < 0) && !fired.lost && !fired.twice,
    );
  }
  lines.push(
    `load after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (targets.length) lines.push("the issue's targets (measured locally against a provider double):", ...targets);
  console.log(lines.join('\n'));
} finally {
  await stopProcess(svc.child, 'SIGTERM');
  double.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (process.env.KEEP_STAMPS) console.log(`stamps kept in ${stampsFile}`);
  else rmSync(stampsDir, { recursive: true, force: true });
  if (COUNT_DIR) rmSync(COUNT_DIR, { recursive: true, force: true });
}
