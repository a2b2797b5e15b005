import { deflateRawSync } from 'node:zlib';
import type { ModelDouble } from '#test/support/model-double.ts';
import { median } from './harness.ts';

/**
 * The OpenAI-format reproductions of `bench/untrusted-input.ts`, against a running service whose `openai` bots call
 * the model double and whose default bots use the offline model:
 * - each request built to swell the service or reach the model uncounted (forged item references, a nested-array
 *   schema as answer format and as tool parameters, 2,000,000-character descriptions and prediction, embeddings past
 *   the response limit): its answer, time, the service's RSS growth, /healthz p99 beside it, and credits charged;
 * - how long after a caller leaves the model call is aborted (the double sees its connection close), per route and
 *   mode, the model's first token 10 s away: p50 and p99, and the credits charged.
 */
export interface AiContext {
  baseUrl: string;
  rounds: number;
  token: string;
  offlineBot: string;
  openaiBot: string;
  double: ModelDouble;
  balance: () => Promise<number>;
  rssMb: () => number;
  observed: <T>(work: () => Promise<T>) => Promise<{ value: T; peakMb: number; healthz: number[] }>;
  p99: (xs: number[]) => number;
}

export interface AiRow {
  name: string;
  answer: string;
  ms: number[];
  growthMb: number[];
  healthzP99: number[];
  credits: number[];
}

const bombId = `msg_z_${deflateRawSync(Buffer.alloc(480_000, 'a'), { level: 9 }).toString('base64url')}`;

/** `skip`: names of cases not to send (a tree where one kills the service, for a before/after run). */
export async function aiReproductions(ctx: AiContext, skip: ReadonlySet<string> = new Set()): Promise<AiRow[]> {
  let nested: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 4; i++) nested = { type: 'array', minItems: 50, items: nested };
  const huge = 'd'.repeat(2_000_000);
  const refs = (n: number) => [
    ...Array.from({ length: n }, () => ({ type: 'item_reference', id: bombId })),
    { role: 'user', content: 'hi' },
  ];
  const cases: [string, string, unknown][] = [
    ['9,500 item references', 'responses', { model: ctx.offlineBot, input: refs(9_500) }],
    ['999 item references', 'responses', { model: ctx.offlineBot, input: refs(999) }],
    [
      'nested arrays as response_format',
      'chat/completions',
      {
        model: ctx.offlineBot,
        messages: [{ role: 'user', content: 'rows' }],
        response_format: { type: 'json_schema', json_schema: { name: 'rows', schema: nested } },
      },
    ],
    [
      'nested arrays as tool parameters',
      'chat/completions',
      {
        model: ctx.offlineBot,
        messages: [{ role: 'user', content: 'rows' }],
        tools: [
          { type: 'function', function: { name: 'rows', parameters: { type: 'object', properties: { r: nested } } } },
        ],
      },
    ],
    [
      'response_format description 2M',
      'chat/completions',
      {
        model: ctx.openaiBot,
        messages: [{ role: 'user', content: 'x' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'x', description: huge, schema: { type: 'object' } },
        },
      },
    ],
    [
      'text.format description 2M',
      'responses',
      {
        model: ctx.openaiBot,
        input: 'x',
        text: { format: { type: 'json_schema', name: 'x', description: huge, schema: { type: 'object' } } },
      },
    ],
    [
      'prediction 2M',
      'chat/completions',
      {
        model: ctx.openaiBot,
        messages: [{ role: 'user', content: 'x' }],
        prediction: { type: 'content', content: huge },
      },
    ],
    [
      'embeddings 2,048 × 1,024 base64',
      'embeddings',
      {
        model: ctx.offlineBot,
        input: Array.from({ length: 2_048 }, (_, i) => `text ${i}`),
        dimensions: 1_024,
        encoding_format: 'base64',
      },
    ],
  ];
  const rows: AiRow[] = [];
  for (const [name, path, body] of cases) {
    if (skip.has(name)) continue;
    const text = JSON.stringify(body);
    const row: AiRow = { name, answer: '', ms: [], growthMb: [], healthzP99: [], credits: [] };
    for (let r = 0; r < ctx.rounds; r++) {
      const before = ctx.rssMb();
      const credits = await ctx.balance();
      const started = performance.now();
      const run = await ctx.observed(async () => {
        const res = await fetch(`${ctx.baseUrl}/api/v1/ai/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
          body: text,
        }).catch((error: unknown) => error as Error);
        if (res instanceof Error) return `failed: ${res.message}`;
        const json = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
        return `${res.status} ${json.error?.code ?? ''}`.trim();
      });
      row.ms.push(performance.now() - started);
      row.growthMb.push(run.peakMb - before);
      row.healthzP99.push(ctx.p99(run.healthz));
      row.credits.push(credits - (await ctx.balance()));
      row.answer = run.value;
    }
    rows.push(row);
    console.error(`${name}: ${row.answer}, ${Math.round(median(row.ms))} ms, +${Math.round(median(row.growthMb))} MB`);
  }
  return rows;
}

export interface AbortRow {
  route: string;
  latencies: number[];
  charged: number;
  trials: number;
}

/** Callers who leave once the model has the prompt: how soon the double sees the call end, and what was charged. */
export async function abortLatency(ctx: AiContext, trials: number): Promise<AbortRow[]> {
  const variants: [string, string, (m: string) => unknown][] = [
    [
      'chat/completions, streamed',
      'chat/completions',
      (m) => ({ model: ctx.openaiBot, stream: true, messages: [{ role: 'user', content: `#drip=10000 ${m}` }] }),
    ],
    [
      'chat/completions',
      'chat/completions',
      (m) => ({ model: ctx.openaiBot, messages: [{ role: 'user', content: `#slow=10000 ${m}` }] }),
    ],
    ['responses, streamed', 'responses', (m) => ({ model: ctx.openaiBot, stream: true, input: `#drip=10000 ${m}` })],
    ['responses', 'responses', (m) => ({ model: ctx.openaiBot, input: `#slow=10000 ${m}` })],
  ];
  const rows: AbortRow[] = [];
  let seq = 0;
  for (const [route, path, body] of variants) {
    const row: AbortRow = { route, latencies: [], charged: 0, trials };
    const before = await ctx.balance();
    for (let t = 0; t < trials; t++) {
      const m = `abort-${++seq}-${Date.now()}`;
      const controller = new AbortController();
      const pending = fetch(`${ctx.baseUrl}/api/v1/ai/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body(m)),
        signal: controller.signal,
      }).catch(() => undefined);
      while (!ctx.double.find(m).length) await new Promise((r) => setTimeout(r, 2));
      const left = performance.now();
      controller.abort();
      await pending;
      const deadline = left + 15_000;
      while (!ctx.double.abandoned.some((r) => r.prompt.includes(m)) && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 2));
      row.latencies.push(performance.now() - left);
    }
    // Settles land just after the caller left.
    await new Promise((r) => setTimeout(r, 500));
    row.charged = before - (await ctx.balance());
    rows.push(row);
    console.error(`${route}: abort p99 ${Math.round(ctx.p99(row.latencies))} ms, charged ${row.charged}/${trials}`);
  }
  return rows;
}
