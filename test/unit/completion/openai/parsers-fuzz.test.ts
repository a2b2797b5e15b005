import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '#shared/completion/api/openai/chat-request.ts';
import { parseEmbeddingsRequest } from '#shared/completion/api/openai/embeddings.ts';
import { OpenAiRequestError } from '#shared/completion/api/openai/request-errors.ts';
import { parseResponsesRequest } from '#shared/completion/api/openai/responses-request.ts';
import { threadCpu } from '#test/support/thread-cpu.ts';

/**
 * The OpenAI-format request parsers take untrusted JSON: whatever arrives, they answer a value or a 400
 * (`OpenAiRequestError`), never another exception (a 500) and never slowly. Adversarial generators put arbitrary
 * JSON where each structured field goes (tools and their schemas, messages and their parts, tool calls, input items).
 */
const limits = { maxOutputTokens: 4096 };
const json = fc.jsonValue({ maxDepth: 6 });
/** Absent most of the time, so most bodies get past the simple fields into the structured ones. */
const rare = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: arb, weight: 1 });
const schemaish = fc.oneof(
  json,
  fc.record(
    { type: fc.constantFrom('object', 'string', 'nope', 5), properties: fc.dictionary(fc.string(), json) },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      $ref: fc.string(),
      $schema: fc.constantFrom(
        'http://json-schema.org/draft-07/schema#',
        'x',
        'https://json-schema.org/draft/2020-12/schema',
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record({ type: fc.constant('string'), pattern: fc.constantFrom('(a+)+$', '[', '^\\d+$', '(?<=x)y') }),
);
const message = fc.record(
  {
    role: fc.constantFrom('user', 'assistant', 'system', 'developer', 'tool', 'function', 'x'),
    content: fc.oneof(
      fc.string(),
      fc.constant(null),
      fc.array(
        fc.record({ type: fc.constantFrom('text', 'image_url', 'refusal', 'x'), text: json }, { requiredKeys: [] }),
      ),
    ),
    tool_calls: fc.array(
      fc.record(
        {
          id: json,
          type: fc.constantFrom('function', 'x'),
          function: fc.record({ name: json, arguments: fc.oneof(fc.string(), json) }),
        },
        { requiredKeys: [] },
      ),
    ),
    tool_call_id: fc.oneof(fc.string(), json),
    name: json,
  },
  { requiredKeys: ['role'] },
);
const tool = fc.record(
  {
    type: fc.constantFrom('function', 'function', 'function', 'custom', 'web_search'),
    function: fc.record(
      { name: fc.oneof(fc.string(), json), parameters: schemaish, strict: json },
      { requiredKeys: [] },
    ),
    name: json,
    parameters: schemaish,
  },
  { requiredKeys: [] },
);
const chatBody = fc.record(
  {
    model: fc.oneof({ arbitrary: fc.constant('bot_1'), weight: 6 }, { arbitrary: json, weight: 1 }),
    messages: fc.oneof({ arbitrary: fc.array(message, { maxLength: 6 }), weight: 6 }, { arbitrary: json, weight: 1 }),
    tools: fc.oneof(fc.array(tool, { maxLength: 4 }), json),
    tool_choice: rare(fc.oneof(fc.constantFrom('auto', 'none', 'required'), json)),
    response_format: fc.oneof(
      fc.record(
        {
          type: fc.constantFrom('text', 'json_object', 'json_schema'),
          json_schema: fc.record({ name: fc.string(), schema: schemaish }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      ),
      json,
    ),
    max_tokens: rare(json),
    temperature: rare(json),
    stop: rare(json),
    stream: rare(json),
    stream_options: rare(json),
    metadata: rare(json),
    logit_bias: rare(json),
    n: rare(json),
  },
  { requiredKeys: ['model', 'messages'] },
);
const responsesBody = fc.record(
  {
    model: fc.oneof({ arbitrary: fc.constant('bot_1'), weight: 6 }, { arbitrary: json, weight: 1 }),
    input: fc.oneof(
      fc.string(),
      fc.array(
        fc.record(
          {
            type: fc.constantFrom('message', 'function_call', 'function_call_output', 'item_reference', 'reasoning'),
            role: fc.constantFrom('user', 'assistant', 'system', 'x'),
            content: fc.oneof(fc.string(), json),
            call_id: json,
            name: json,
            arguments: fc.oneof(fc.string(), json),
            output: json,
            id: fc.oneof(
              fc.string().map((s) => `msg_z_${s}`),
              json,
            ),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 6 },
      ),
      json,
    ),
    tools: fc.oneof(fc.array(tool, { maxLength: 4 }), json),
    text: fc.oneof(
      fc.record(
        {
          format: fc.record(
            { type: fc.constantFrom('text', 'json_schema', 'x'), name: fc.string(), schema: schemaish },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
      json,
    ),
    instructions: rare(json),
    store: rare(json),
    max_output_tokens: rare(json),
  },
  { requiredKeys: ['model', 'input'] },
);
const embeddingsBody = fc.record(
  {
    model: json,
    input: fc.oneof(json, fc.array(fc.string()), fc.array(fc.integer())),
    encoding_format: json,
    dimensions: json,
  },
  { requiredKeys: [] },
);

/**
 * Each body answered with a value or a 400, within a second of this thread's CPU: CPU time rather than wall time,
 * so a loaded machine (the test's process waiting for a core) cannot fail it, while a parser that works too long does.
 */
function only400s(parse: (body: Record<string, unknown>) => unknown) {
  return (body: Record<string, unknown>) => {
    const { cpuMs } = threadCpu(() => {
      try {
        parse(body);
      } catch (error) {
        if (!(error instanceof OpenAiRequestError)) throw error;
      }
    });
    expect(cpuMs).toBeLessThan(1_000);
  };
}

describe('the OpenAI-format parsers under arbitrary input', () => {
  it('chat completions: a value or a 400, never another error', () => {
    fc.assert(
      fc.property(
        chatBody,
        only400s((b) => parseChatRequest(b, limits)),
      ),
      { numRuns: 400 },
    );
  });
  it('responses: a value or a 400, never another error', () => {
    fc.assert(
      fc.property(
        responsesBody,
        only400s((b) => parseResponsesRequest(b, limits)),
      ),
      { numRuns: 400 },
    );
  });
  it('embeddings: a value or a 400, never another error', () => {
    fc.assert(fc.property(embeddingsBody, only400s(parseEmbeddingsRequest)), { numRuns: 400 });
  });
});
