/**
 * The AI ecosystem's routes (bench/history/2026-11-ai-ecosystem.md), through the local gateway, with the tool-calling OpenAI-compatible double as the bot's model
 * and embeddings server (test/e2e/tool-model-double.ts), so the whole chain is measured:
 *  - tool-call round trip against plain chat, non-streaming, the double answering at once: a request with two
 *    function definitions that the model answers with a call, and the next request carrying the call and its result
 *    (answered with text), each against a plain chat request in the same round: ratios of p50 latency and of the
 *    service's CPU time per request (target: ≤ 110 %), at 1 and 16 connections;
 *  - streaming time to first byte, the double's first chunk 50 ms after the request: Responses (`stream: true`,
 *    named events) against chat completions; the overhead is TTFB − 50 ms (target: Responses' ≤ chat's);
 *  - embeddings of 16 inputs (`POST /api/v1/ai/embeddings`): p50 at 1 and 16 connections.
 * Rounds alternate the order of the scenarios; the tables report medians over rounds (the machine is shared).
 * Run: npx tsx bench/ai-ecosystem.ts [--seconds 2] [--rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startService } from '#local/service.ts';
import { startToolModelDouble } from '#test/e2e/tool-model-double.ts';
import { adminApi, machine, median } from './lib/harness.ts';
import { type Measured, scenarioRounds } from './lib/scenario-rounds.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '2' }, rounds: { type: 'string', default: '3' } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const FIRST_TOKEN_MS = 50;

const double = await startToolModelDouble();
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-ai-'));
const svc = await startService({
  port: 0,
  dataDir,
  env: {
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: double.baseUrl,
    OPENAI_MODEL: 'bench-model',
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: double.baseUrl,
    BOT_RATE_LIMIT_PER_MINUTE: '100000',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  },
});
const admin = adminApi(svc);
const project = await admin('POST', '/projects', { companyId: 1, name: 'bench', monthlyBotCredits: 1_000_000_000 });
const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
const { botId } = await admin('POST', `/projects/${project.projectId}/bots`, {
  name: 'Travel agent',
  instructions: 'You are the travel agent. Answer briefly.',
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'Local time in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const question = 'What is the weather in Lisbon right now?';
const callTurn = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon","unit":"c"}' } },
  ],
};

const scenarios = {
  'chat, plain': {
    path: '/api/v1/ai/chat/completions',
    body: JSON.stringify({ model: botId, messages: [{ role: 'user', content: question }] }),
    firstByte: false,
  },
  'chat, tools → a call': {
    path: '/api/v1/ai/chat/completions',
    body: JSON.stringify({ model: botId, tools, messages: [{ role: 'user', content: question }] }),
    firstByte: false,
  },
  'chat, call result → text': {
    path: '/api/v1/ai/chat/completions',
    body: JSON.stringify({
      model: botId,
      tools,
      messages: [
        { role: 'user', content: question },
        callTurn,
        { role: 'tool', tool_call_id: 'call_1', content: '22 °C, sunny' },
      ],
    }),
    firstByte: false,
  },
  [`chat streaming TTFB, first chunk at ${FIRST_TOKEN_MS} ms`]: {
    path: '/api/v1/ai/chat/completions',
    body: JSON.stringify({
      model: botId,
      stream: true,
      messages: [{ role: 'user', content: `#late=${FIRST_TOKEN_MS} Lisbon?` }],
    }),
    firstByte: true,
  },
  [`responses streaming TTFB, first chunk at ${FIRST_TOKEN_MS} ms`]: {
    path: '/api/v1/ai/responses',
    body: JSON.stringify({ model: botId, stream: true, input: `#late=${FIRST_TOKEN_MS} Lisbon?` }),
    firstByte: true,
  },
  'embeddings, 16 inputs': {
    path: '/api/v1/ai/embeddings',
    body: JSON.stringify({
      model: botId,
      input: Array.from({ length: 16 }, (_, i) => `Passage ${i}: the store opens at nine and closes at six.`),
    }),
    firstByte: false,
  },
} as const;
const results = await scenarioRounds({ baseUrl: svc.baseUrl, headers, scenarios, seconds, rounds });

const fmt = (n: number, d = 1) => n.toFixed(d);
console.log(`\nThe AI ecosystem's routes — ${machine()}`);
console.log(
  `${new Date().toISOString()} — load average at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (shared machine)`,
);
console.log(`npx tsx bench/ai-ecosystem.ts --seconds ${seconds} --rounds ${rounds}\n`);
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
  for (const tool of ['chat, tools → a call', 'chat, call result → text'] as const) {
    const pairs = results[`${tool} | ${connections}`]!.map((leg, i) => {
      const plain = results[`chat, plain | ${connections}`]![i]!;
      return { latency: leg.p50 / plain.p50, cpu: leg.cpuMsPerRequest / plain.cpuMsPerRequest };
    });
    const pct = (f: (p: (typeof pairs)[number]) => number) => `${fmt(median(pairs.map(f)) * 100, 0)} %`;
    console.log(
      `${connections} connection(s): "${tool}" / plain chat: p50 ${pct((p) => p.latency)}, CPU per request ${pct((p) => p.cpu)} ` +
        `(median of ${pairs.length} same-round pairs)`,
    );
  }
  const chat = median(
    results[`chat streaming TTFB, first chunk at ${FIRST_TOKEN_MS} ms | ${connections}`]!.map((r) => r.p50),
  );
  const responses = median(
    results[`responses streaming TTFB, first chunk at ${FIRST_TOKEN_MS} ms | ${connections}`]!.map((r) => r.p50),
  );
  console.log(
    `${connections} connection(s): streaming TTFB overhead (p50 − ${FIRST_TOKEN_MS} ms): chat ${fmt(chat - FIRST_TOKEN_MS)} ms, ` +
      `responses ${fmt(responses - FIRST_TOKEN_MS)} ms`,
  );
}

await svc.stop();
await double.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
