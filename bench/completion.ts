/**
 * Overhead of POST /api/v1/ai/completion excluding the model's own time (bench/history/2026-11-completion-overhead.md):
 *  - the offline provider (in-process, no network) through the local gateway, 1 and 16 connections;
 *  - the anchor: a bare node:http server doing the same DynamoDB operations (token read, rate-limit write, [bot read],
 *    charge, settle) with the same adapters on the same dynalite and the same offline generation, in the same run;
 *  - DynamoDB operations per completion, counted on the service's own client.
 * Each round runs service and anchor back to back (order alternating); the table reports medians over rounds and the
 * median of the per-round ratios (the machine is shared, so only same-moment comparisons mean much).
 * Run: npx tsx bench/completion.ts [--seconds 2] [--rounds 9]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { localDocumentClient } from '#test/support/dynamo.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { DynamoCreditLedger } from '#shared/credits/index.ts';
import { DynamoTokenStore } from '#shared/auth/index.ts';
import { OfflineModelProvider } from '#shared/model-providers/index.ts';
import { hashToken } from '#shared/kernel/tokens.ts';
import { composeSystemPrompt } from '#shared/completion/index.ts';
import { newId } from '#shared/kernel/ids.ts';
import { DynamoRateLimiter, gcraParams } from '#shared/ratelimit/index.ts';
import { startService } from '#local/service.ts';
import { completionCaller } from './lib/completion-caller.ts';
import { load as runLoad, median, type LoadResult } from './lib/harness.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '2' }, rounds: { type: 'string', default: '9' } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const RATE = 100_000;

const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-completion-'));
const svc = await startService({
  port: 0,
  dataDir,
  env: { MODEL_PROVIDER: 'offline', BOT_RATE_LIMIT_PER_MINUTE: String(RATE), POWERTOOLS_LOG_LEVEL: 'SILENT' },
});

const serviceCaller = await completionCaller(svc, 1);
const anchorCaller = await completionCaller(svc, 2);

const prompt = 'What are the opening hours of the store on Saturdays, and can I pick up an online order there?';
const instructionsBody = (bench: { botId: string }, kind: 'instructions' | 'bot') =>
  JSON.stringify(
    kind === 'bot'
      ? { prompt, botId: bench.botId }
      : { prompt, instructions: "You are the store's assistant. Answer briefly." },
  );

// The anchor: node:http, the same adapters and DynamoDB operations on the same dynalite, the same offline generation.
const anchorClient = localDocumentClient(svc.emulators.dynamoEndpoint);
const table = { client: anchorClient, tableName: svc.emulators.tableName };
const tokens = new DynamoTokenStore(table);
const limiter = new DynamoRateLimiter(table, gcraParams(RATE));
const ledger = new DynamoCreditLedger(table);
const bots = new DynamoBotStore(table);
const offline = new OfflineModelProvider();
const anchor = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    prompt: string;
    botId?: string;
    instructions?: string;
  };
  const tokenHash = hashToken((req.headers.authorization ?? '').slice(7));
  const grant = await tokens.find(tokenHash);
  if (grant?.kind !== 'projectApi') return res.writeHead(401).end();
  await limiter.admit(tokenHash, Date.now());
  const bot = body.botId ? await bots.get(body.botId) : undefined;
  const charged = await ledger.charge(
    { projectId: grant.projectId, monthlyAllowance: grant.monthlyBotCredits },
    newId('chg'),
    new Date(),
  );
  if (!charged.charged) return res.writeHead(402).end();
  const reply = await offline.generate({
    system: composeSystemPrompt({
      instructions: bot?.instructions ?? body.instructions ?? '',
      excerpts: [],
      responseFormat: 'text',
    }),
    prompt: body.prompt,
    responseFormat: 'text',
    excerpts: [],
    signal: new AbortController().signal,
  });
  await ledger.settle(charged.receipt);
  res
    .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify({ success: true, result: reply.text, usage: reply.usage }));
});
anchor.listen(0, '127.0.0.1');
await new Promise((r) => anchor.once('listening', r));
const anchorUrl = `http://127.0.0.1:${(anchor.address() as AddressInfo).port}/`;
const serviceUrl = `${svc.baseUrl}/api/v1/ai/completion`;

// DynamoDB operations per completion, as dynalite receives them (the wire: the functions run on the runner's HTTP
// thread).
const dynamo = recordDynamoCalls(svc);
async function opsFor(kind: 'instructions' | 'bot'): Promise<string[]> {
  dynamo.reset();
  const res = await fetch(serviceUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${serviceCaller.token}`, 'content-type': 'application/json' },
    body: instructionsBody(serviceCaller, kind),
  });
  if (res.status !== 200) throw new Error(`completion answered ${res.status}: ${await res.text()}`);
  return [...dynamo.calls];
}
const ops = { instructions: await opsFor('instructions'), bot: await opsFor('bot') };
dynamo.stop();

type Measured = LoadResult & { cpuMsPerRequest: number };

/**
 * One load run from a separate process. Also measures this process's CPU time per request: service, anchor and
 * dynalite all live here, the dynalite share is the same for both, so the difference is the overhead, and CPU time
 * is far less disturbed by other engineers' work than wall-clock throughput.
 */
async function load(options: Parameters<typeof loadOnce>[0]): Promise<Measured> {
  const cpu = process.cpuUsage();
  const result = await loadOnce(options);
  const used = process.cpuUsage(cpu);
  return { ...result, cpuMsPerRequest: (used.user + used.system) / 1000 / result.allRequests };
}

/** One closed-loop POST run (its own process), refusing anything but 200s. */
async function loadOnce(options: {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
}): Promise<LoadResult> {
  const result = await runLoad({ ...options, method: 'POST', seconds, warmupSeconds: 0.5 });
  if (result.errors || Object.keys(result.statuses).some((s) => s !== '200')) {
    throw new Error(`unexpected answers: ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
  }
  return result;
}

// Service and anchor alternate in short back-to-back pairs, so both see the same background load; the ratio is
// taken per pair and its median reported (single long runs swing by tens of percent on a shared 2-core machine).
const results: Record<string, Measured[]> = {};
const add = (name: string, r: Measured) => {
  results[name] ??= [];
  results[name].push(r);
};
const headersFor = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
// Warm-up (the SDK + dynalite path runs at about half speed for its first seconds), not recorded.
for (const [url, caller] of [
  [serviceUrl, serviceCaller],
  [anchorUrl, anchorCaller],
] as const) {
  await load({ url, headers: headersFor(caller.token), body: instructionsBody(caller, 'bot'), connections: 16 });
}
for (let round = 0; round < rounds; round++) {
  for (const kind of ['instructions', 'bot'] as const) {
    for (const connections of [1, 16]) {
      const service = () =>
        load({
          url: serviceUrl,
          headers: headersFor(serviceCaller.token),
          body: instructionsBody(serviceCaller, kind),
          connections,
        });
      const bare = () =>
        load({
          url: anchorUrl,
          headers: headersFor(anchorCaller.token),
          body: instructionsBody(anchorCaller, kind),
          connections,
        });
      // Alternate which goes first, so neither always gets the warmer (or the noisier) slot.
      if (round % 2 === 0) {
        add(`${kind} gateway c=${connections}`, await service());
        add(`${kind} bare node:http c=${connections}`, await bare());
      } else {
        add(`${kind} bare node:http c=${connections}`, await bare());
        add(`${kind} gateway c=${connections}`, await service());
      }
    }
  }
  process.stderr.write(`round ${round + 1}/${rounds} done\n`);
}

const fmt = (n: number, d = 2) => n.toFixed(d);
console.log(
  `\nCompletion overhead (offline provider) — ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`,
);
console.log(
  `${new Date().toISOString()} — load average at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (shared machine)`,
);
console.log(`npx tsx bench/completion.ts --seconds ${seconds} --rounds ${rounds}\n`);
console.log(
  `DynamoDB operations per completion: instructions ${ops.instructions.length} (${ops.instructions.join(', ')}); bot ${ops.bot.length} (${ops.bot.join(', ')})\n`,
);
console.log('| scenario | p50 ms | p90 ms | p99 ms | req/s | CPU ms/request (service process) |');
console.log('|---|---|---|---|---|---|');
for (const [name, rows] of Object.entries(results)) {
  const m = (f: (r: Measured) => number, d = 2) => fmt(median(rows.map(f)), d);
  console.log(
    `| ${name} | ${m((r) => r.p50)} | ${m((r) => r.p90)} | ${m((r) => r.p99)} | ${m((r) => r.rps, 0)} | ${m((r) => r.cpuMsPerRequest)} |`,
  );
}
console.log('\n(medians over rounds of each measure)');
for (const kind of ['instructions', 'bot']) {
  for (const connections of [1, 16]) {
    const perPair = results[`${kind} gateway c=${connections}`]!.map(
      (r, i) => r.rps / results[`${kind} bare node:http c=${connections}`]![i]!.rps,
    );
    const sorted = [...perPair].sort((a, b) => a - b);
    const cpuRatio = results[`${kind} bare node:http c=${connections}`]!.map(
      (r, i) => r.cpuMsPerRequest / results[`${kind} gateway c=${connections}`]![i]!.cpuMsPerRequest,
    );
    console.log(
      `${kind}, ${connections} connection(s): gateway req/s / bare node:http req/s, median of ${perPair.length} pairs ${fmt(median(perPair) * 100, 0)} % ` +
        `(range ${fmt(sorted[0]! * 100, 0)}-${fmt(sorted.at(-1)! * 100, 0)} %); bare CPU/request ÷ gateway CPU/request ${fmt(median(cpuRatio) * 100, 0)} %`,
    );
  }
}

anchor.close();
anchorClient.destroy();
await svc.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
