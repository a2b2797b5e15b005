import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import {
  CONVERSATION_MAX_CHARS,
  jsonChars,
  type OpenAiCompletion,
  OpenAiRequestError,
  parseChatRequest,
  parseResponsesRequest,
  selfContainedMessageId,
} from '#shared/completion/index.ts';
import { boundedSample } from '#shared/model-providers/index.ts';
import type { Fuzzer } from './fuzzer.ts';

/**
 * Fuzzers for what the OpenAI-format routes decode and what the offline model generates from a caller's schema:
 * forged item references that inflate, answer-format and function descriptions, function schemas built to be
 * expensive (wide, deep, nested arrays, recursive `$ref`s, `allOf` chains), `prediction`. Shared with
 * test/support/fuzzers.ts's list (the unit test and `bench/fuzz.ts` run them).
 */

// ---------------------------------------------------------------------------------------------------------------
// Hostile schemas

const leaf = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.constant({ type: 'integer', minimum: -9007199254740991 }),
  fc.record({ type: fc.constant('string'), minLength: fc.constantFrom(10, 1_000, 1e6, 1e9) }),
  fc.constant({ enum: ['a', 'b'] }),
  fc.constant({ $ref: '#' }),
  fc.constant(true),
);

/** A schema of up to `depth` levels: arrays asking for many items, wide objects, recursive refs, combinators. */
const schemaOf = (depth: number): fc.Arbitrary<unknown> =>
  depth === 0
    ? leaf
    : fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            type: fc.constant('array'),
            minItems: fc.constantFrom(1, 10, 50, 1_000),
            items: schemaOf(depth - 1),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.tuple(fc.integer({ min: 1, max: 40 }), schemaOf(depth - 1)).map(([width, child]) => ({
            type: 'object',
            properties: Object.fromEntries(Array.from({ length: width }, (_, i) => [`p${i}`, child])),
            required: ['p0', 'missing'],
          })),
        },
        { weight: 1, arbitrary: fc.tuple(schemaOf(depth - 1), schemaOf(depth - 1)).map((parts) => ({ allOf: parts })) },
        { weight: 1, arbitrary: fc.tuple(schemaOf(depth - 1), leaf).map((parts) => ({ anyOf: parts })) },
        {
          weight: 1,
          arbitrary: fc
            .array(schemaOf(depth - 1), { maxLength: 5 })
            .map((items) => ({ type: 'array', prefixItems: items })),
        },
        { weight: 1, arbitrary: leaf },
      );

export const schemaSampleFuzzer: Fuzzer<{ schema: unknown; maxChars: number }, { schema: unknown; maxChars: number }> =
  {
    name: 'Offline model schemas',
    inputs: fc.record({ schema: schemaOf(6), maxChars: fc.constantFrom(40, 1_000, 16_384, 65_536) }),
    budget: { ms: 500, mb: 64 },
    describe: (c) => `${jsonChars(c.schema, 1e9)}-character schema, room ${c.maxChars}`,
    prepare: (c) => c,
    async run(c) {
      const sampled = boundedSample(c.schema, 'Make rows for Lisbon', c.maxChars);
      const chars = JSON.stringify(sampled.value).length;
      if (chars > c.maxChars) throw new Error(`a sample of ${chars} characters in a room of ${c.maxChars}`);
    },
  };

// ---------------------------------------------------------------------------------------------------------------
// OpenAI-format request bodies

interface RequestCase {
  route: 'chat' | 'responses';
  /** Item references: forged (inflating to `inflate` bytes each), real (of `text` characters) or garbage. */
  references: { kind: 'forged' | 'real' | 'garbage'; size: number }[];
  description: number;
  prediction: number;
  tools: unknown[];
  format: unknown;
  message: number;
}

const requestCase: fc.Arbitrary<RequestCase> = fc.record({
  route: fc.constantFrom('chat', 'responses'),
  references: fc.array(
    fc.record({
      kind: fc.constantFrom('forged', 'real', 'garbage'),
      size: fc.constantFrom(10, 10_000, 119_000, 480_000, 5_000_000),
    }),
    { maxLength: 40 },
  ),
  description: fc.constantFrom(0, 100, 60_000, 2_000_000),
  prediction: fc.constantFrom(0, 100, 2_000_000),
  tools: fc.array(schemaOf(4), { maxLength: 8 }),
  format: fc.oneof(fc.constant(undefined), schemaOf(5)),
  message: fc.constantFrom(1, 1_000, 119_000, 200_000),
});

/** Built once per size: deflating megabytes per input would dominate the run. */
const forgedIds = new Map<number, string>();
const forged = (bytes: number) => {
  let id = forgedIds.get(bytes);
  if (!id) {
    id = `msg_z_${deflateRawSync(Buffer.alloc(bytes, 'a'), { level: 9 }).toString('base64url')}`;
    forgedIds.set(bytes, id);
  }
  return id;
};

function requestBody(c: RequestCase): Record<string, unknown> {
  const tools = c.tools.map((parameters, i) => ({
    name: `f${i}`,
    description: 'x'.repeat(c.description),
    parameters:
      typeof parameters === 'object' && parameters !== null ? { type: 'object', properties: { a: parameters } } : {},
  }));
  const format =
    c.format === undefined
      ? undefined
      : {
          name: 'answer',
          description: 'y'.repeat(c.description),
          schema: { type: 'object', properties: { a: c.format } },
        };
  const text = 'm'.repeat(c.message);
  if (c.route === 'chat')
    return {
      model: 'bot_1',
      messages: [{ role: 'user', content: text }],
      ...(tools.length
        ? { tools: tools.map(({ name, ...fn }) => ({ type: 'function', function: { name, ...fn } })) }
        : {}),
      ...(format ? { response_format: { type: 'json_schema', json_schema: format } } : {}),
      ...(c.prediction ? { prediction: { type: 'content', content: 'p'.repeat(c.prediction) } } : {}),
    };
  const references = c.references.map((r) => ({
    type: 'item_reference',
    id:
      r.kind === 'forged'
        ? forged(r.size)
        : r.kind === 'real'
          ? selfContainedMessageId('r'.repeat(Math.min(r.size, 150_000)))
          : `msg_z_${'!'.repeat(r.size % 1000)}`,
  }));
  return {
    model: 'bot_1',
    input: [...references, { role: 'user', content: text }],
    ...(tools.length ? { tools: tools.map((tool) => ({ type: 'function', ...tool })) } : {}),
    ...(format ? { text: { format: { type: 'json_schema', ...format } } } : {}),
  };
}

/** What the parsed request hands the model, measured the way the budget counts it. */
function modelChars(request: OpenAiCompletion): number {
  let chars = (request.extraInstructions ?? '').length;
  for (const turn of request.turns ?? []) chars += turn.text.length;
  for (const tool of request.tools ?? [])
    chars += tool.name.length + (tool.description ?? '').length + jsonChars(tool.parameters, 1e9);
  if (request.jsonSchema)
    chars +=
      request.jsonSchema.name.length +
      (request.jsonSchema.description ?? '').length +
      jsonChars(request.jsonSchema.schema, 1e9);
  if (request.parameters.prediction) chars += jsonChars(request.parameters.prediction, 1e9);
  return chars;
}

export const openAiRequestFuzzer: Fuzzer<RequestCase, Record<string, unknown>> = {
  name: 'OpenAI-format requests',
  inputs: requestCase,
  budget: { ms: 600, mb: 96 },
  describe: (c) =>
    `${c.route}, ${c.references.length} references (${c.references.filter((r) => r.kind === 'forged').length} forged), ` +
    `${c.tools.length} tools, description ${c.description}, prediction ${c.prediction}, message ${c.message}`,
  prepare: requestBody,
  async run(body, c) {
    const limits = { maxOutputTokens: 4096 };
    let request: OpenAiCompletion;
    try {
      request = (c.route === 'chat' ? parseChatRequest(body, limits) : parseResponsesRequest(body, limits)).completion;
      request.checkBeforeCharge?.();
    } catch (error) {
      if (error instanceof OpenAiRequestError) return;
      throw error;
    }
    // Within the budget, however it was built: at most the budget (and the separators joined texts gain).
    const chars = modelChars(request);
    if (chars > CONVERSATION_MAX_CHARS + (request.turns?.length ?? 0) + 2)
      throw new Error(`a request accepted with ${chars} characters for the model`);
  },
};
