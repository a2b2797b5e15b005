import { describe, expect, it } from 'vitest';
import { OfflineModelProvider } from '#shared/model-providers/adapters/offline-model.ts';
import { boundedSample } from '#shared/model-providers/adapters/schema-sample.ts';
import type { ModelRequest } from '#shared/models/index.ts';
import { threadCpu } from '#test/support/thread-cpu.ts';

/**
 * The offline model's generated values are bounded by the output ceiling (about 4 characters a token) however the
 * schema nests: four nested arrays of `minItems: 50` asked for 50⁴ strings (an 89 MB answer after 16 s).
 */
const nested = (levels: number, leaf: Record<string, unknown> = { type: 'string' }) => {
  let schema: Record<string, unknown> = leaf;
  for (let i = 0; i < levels; i++) schema = { type: 'array', minItems: 50, items: schema };
  return schema;
};

/** CPU milliseconds (this thread's) and the value's JSON length. */
function measured(work: () => string) {
  const { cpuMs, result } = threadCpu(work);
  return { cpuMs, chars: result.length };
}

const offline = new OfflineModelProvider();
const request = (overrides: Partial<ModelRequest>): ModelRequest => ({
  system: 'x',
  prompt: 'A list for Lisbon',
  responseFormat: 'json',
  excerpts: [],
  signal: new AbortController().signal,
  maxOutputTokens: 4096,
  ...overrides,
});

describe('the schema sampler’s bound', () => {
  it.each([
    ['four nested arrays of 50', nested(4)],
    ['six nested arrays of 50', nested(6)],
    ['a string of minLength 1e9', { type: 'string', minLength: 1e9 }],
    ['a recursive $ref with arrays', { type: 'array', minItems: 50, items: { $ref: '#' } }],
    [
      'allOf chains over wide objects',
      {
        $defs: {
          wide: {
            type: 'object',
            properties: Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`p${i}`, { $ref: '#/$defs/deep' }])),
          },
          deep: { allOf: [{ $ref: '#/$defs/wide' }, { $ref: '#/$defs/wide' }] },
        },
        $ref: '#/$defs/deep',
      },
    ],
  ])('%s: at most the room, in linear time, marked incomplete', (_name, schema) => {
    let complete = true;
    const { cpuMs, chars } = measured(() => {
      const sampled = boundedSample(schema, 'Lisbon', 16_384);
      complete = sampled.complete;
      return JSON.stringify(sampled.value);
    });
    expect(chars).toBeLessThanOrEqual(16_384);
    expect(complete).toBe(false);
    // Unbounded, the first took 16 s and the others never end; bounded, each takes milliseconds.
    expect(cpuMs).toBeLessThan(1_000);
  });

  it('a schema that fits is sampled whole and complete', () => {
    const sampled = boundedSample(nested(2, { type: 'integer' }), 'x', 16_384);
    expect(sampled.complete).toBe(true);
    expect((sampled.value as number[][]).flat()).toHaveLength(2_500);
  });

  it('the offline model: a JSON Schema answer and a tool call stop at the output ceiling with `length`', async () => {
    const schema = nested(4);
    const answer = await offline.generate(request({ jsonSchema: { name: 'x', schema }, maxOutputTokens: 1_000 }));
    expect(answer.text.length).toBeLessThanOrEqual(4_000);
    expect(answer.stopReason).toBe('length');
    JSON.parse(answer.text);

    const call = await offline.generate(
      request({
        responseFormat: 'text',
        tools: [{ name: 'f', parameters: { type: 'object', properties: { rows: schema } } }],
        maxOutputTokens: 500,
      }),
    );
    expect(call.toolCalls?.[0]?.arguments.length).toBeLessThanOrEqual(2_000);
    expect(call.stopReason).toBe('length');
  });
});
