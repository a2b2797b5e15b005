/**
 * The OpenAI-format route (bench/history/2026-11-openai-format-route.md), through the local gateway, with an OpenAI-compatible HTTP double as
 * the upstream model (test/support/model-double.ts), so the whole chain is measured, streaming included:
 *  - streaming time to first byte, the double sending its first token 50 ms after the request (then one every
 *    50 ms): p50 at 1 and 16 connections; its overhead (TTFB − 50 ms) against the non-streaming overhead of
 *    POST /api/v1/ai/completion with the double answering at 50 ms (latency − 50 ms), same run;
 *  - non-streaming overhead of POST /api/v1/ai/chat/completions against POST /api/v1/ai/completion on the same bot,
 *    the double answering at once: the ratio of p50 latencies, of req/s and of the service's CPU time per request
 *    (the least noisy of the three on a shared machine), per back-to-back pair.
 * Rounds alternate which route goes first; the tables report medians over rounds (the machine is shared).
 * Run: npx tsx bench/chat-completions.ts [--seconds 2] [--rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startService } from '#local/service.ts';
import { startModelDouble } from '#test/support/model-double.ts';
import { adminApi, machine, median } from './lib/harness.ts';
import { type Measured, scenarioRounds } from './lib/scenario-rounds.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '2' }, rounds: { type: 'string', default: '3' } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const FIRST_TOKEN_MS = 50;

const double = await startModelDouble();
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-chat-'));
const svc = await startService({
  port: 0,
  dataDir,
  env: {
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: double.baseUrl,
    OPENAI_MODEL: 'bench-model',
    BOT_RATE_LIMIT_PER_MINUTE: '100000',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  },
});
const admin = adminApi(svc);
const project = await admin('POST', '/projects', { companyId: 1, name: 'bench', monthlyBotCredits: 1_000_000_000 });
const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
const { botId } = await admin('POST', `/projects/${project.projectId}/bots`, {
  name: 'Store assistant',
  instructions: "You are the store's assistant. Answer briefly.",
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const question = 'What are the opening hours of the store on Saturdays?';

const completionBody = (directive: string) => JSON.stringify({ botId, prompt: `${directive} ${question}`.trim() });
const chatBody = (directive: string, stream: boolean) =>
  JSON.stringify({ model: botId, stream, messages: [{ role: 'user', content: `${directive} ${question}`.trim() }] });

const scenarios = {
  'completion, model at once': { path: '/api/v1/ai/completion', body: completionBody(''), firstByte: false },
  'chat non-streaming, model at once': {
    path: '/api/v1/ai/chat/completions',
    body: chatBody('', false),
    firstByte: false,
  },
  [`completion, model answers at ${FIRST_TOKEN_MS} ms`]: {
    path: '/api/v1/ai/completion',
    body: completionBody(`#slow=${FIRST_TOKEN_MS}`),
    firstByte: false,
  },
  [`chat streaming TTFB, first token at ${FIRST_TOKEN_MS} ms`]: {
    path: '/api/v1/ai/chat/completions',
    // A three-piece answer ("Echo: #drip=50 Saturdays?"), so a request lasts about 150 ms and samples add up.
    body: JSON.stringify({
      model: botId,
      stream: true,
      messages: [{ role: 'user', content: `#drip=${FIRST_TOKEN_MS} Saturdays?` }],
    }),
    firstByte: true,
  },
} as const;
const results = await scenarioRounds({ baseUrl: svc.baseUrl, headers, scenarios, seconds, rounds });

const fmt = (n: number, d = 1) => n.toFixed(d);
const p50 = (key: string) => median(results[key]!.map((r) => r.p50));
console.log(`\nChat completions (OpenAI format) — ${machine()}`);
console.log(
  `${new Date().toISOString()} — load average at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (shared machine)`,
);
console.log(`npx tsx bench/chat-completions.ts --seconds ${seconds} --rounds ${rounds}\n`);
console.log('| scenario | connections | p50 ms | p90 ms | p99 ms | req/s | service CPU ms/request |');
console.log('|---|---|---|---|---|---|---|');
for (const [key, rows] of Object.entries(results)) {
  const [name, connections] = key.split(' | ');
  const m = (f: (r: Measured) => number, d = 1) => fmt(median(rows.map(f)), d);
  console.log(
    `| ${name} | ${connections} | ${m((r) => r.p50)} | ${m((r) => r.p90)} | ${m((r) => r.p99)} | ${m((r) => r.rps, 0)} | ${m((r) => r.cpuMsPerRequest, 2)} |`,
  );
}
console.log(`\n(medians over ${rounds} rounds)`);
for (const connections of [1, 16]) {
  const pairs = results[`chat non-streaming, model at once | ${connections}`]!.map((chat, i) => {
    const native = results[`completion, model at once | ${connections}`]![i]!;
    return {
      latency: chat.p50 / native.p50,
      rps: chat.rps / native.rps,
      cpu: chat.cpuMsPerRequest / native.cpuMsPerRequest,
    };
  });
  const pct = (f: (p: (typeof pairs)[number]) => number) => `${fmt(median(pairs.map(f)) * 100, 0)} %`;
  console.log(
    `non-streaming, ${connections} connection(s): chat p50 / completion p50 = ${pct((p) => p.latency)}, ` +
      `chat req/s / completion req/s = ${pct((p) => p.rps)}, chat CPU/request / completion CPU/request = ${pct((p) => p.cpu)} ` +
      `(median of ${pairs.length} same-round pairs)`,
  );
  const ttfb = p50(`chat streaming TTFB, first token at ${FIRST_TOKEN_MS} ms | ${connections}`);
  const completionAt50 = p50(`completion, model answers at ${FIRST_TOKEN_MS} ms | ${connections}`);
  console.log(
    `streaming, ${connections} connection(s): TTFB p50 ${fmt(ttfb)} ms (overhead ${fmt(ttfb - FIRST_TOKEN_MS)} ms); ` +
      `completion p50 with the model at ${FIRST_TOKEN_MS} ms ${fmt(completionAt50)} ms (overhead ${fmt(completionAt50 - FIRST_TOKEN_MS)} ms); ` +
      `ratio of overheads ${fmt((ttfb - FIRST_TOKEN_MS) / (completionAt50 - FIRST_TOKEN_MS), 2)}`,
  );
}

await svc.stop();
await double.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
