import { describe, expect, it } from 'vitest';
import {
  checkEmbeddingsAnswerFits,
  embeddingsAnswerBytes,
  embeddingsResponse,
  largestEmbeddingsBatch,
  parseEmbeddingsRequest,
} from '#shared/completion/api/openai/embeddings.ts';
import { RequestBudget } from '#shared/completion/api/openai/request-budget.ts';
import { OpenAiRequestError } from '#shared/completion/api/openai/request-errors.ts';
import { parseResponsesRequest } from '#shared/completion/api/openai/responses-request.ts';
import { messageTextOfId, selfContainedMessageId } from '#shared/completion/api/openai/self-contained-ids.ts';
import { HashedEmbeddings, hashedVector } from '#shared/knowledge/index.ts';

const limits = { maxOutputTokens: 4096 };
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof OpenAiRequestError) return { param: error.param, code: error.code };
    throw error;
  }
  throw new Error('accepted');
};

describe('parseResponsesRequest', () => {
  it('input items as the clients send them: messages, echoed output items, calls and their outputs', () => {
    const request = parseResponsesRequest(
      {
        model: 'bot_1',
        instructions: 'Be brief.',
        input: [
          { role: 'system', content: 'Answer in Portuguese.' },
          { role: 'user', content: [{ type: 'input_text', text: 'Weather in Lisbon?' }] },
          // LangChain / the openai SDK echo our items with id and status.
          {
            id: 'msg_1',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Let me see.' }],
          },
          {
            id: 'fc_1',
            type: 'function_call',
            status: 'completed',
            call_id: 'call_1',
            name: 'get_weather',
            arguments: '{"city":"Lisbon"}',
          },
          { type: 'function_call_output', call_id: 'call_1', output: '22 °C' },
        ],
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: null }],
        text: {},
        store: false,
        max_output_tokens: 100_000,
      },
      limits,
    );
    expect(request.completion.turns).toEqual([
      { role: 'user', text: 'Weather in Lisbon?' },
      {
        role: 'assistant',
        text: 'Let me see.',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', text: '22 °C' },
    ]);
    expect(request.completion.extraInstructions).toBe('Be brief.\n\nAnswer in Portuguese.');
    expect(request.completion.maxOutputTokens).toBe(4096);
    expect(request.completion.tools).toEqual([{ name: 'get_weather', parameters: { type: 'object' } }]);
  });

  it('text.format json_schema; an item_reference to a self-contained id is its text', () => {
    const id = selfContainedMessageId('Hello! ✓');
    expect(messageTextOfId(id, new RequestBudget())).toBe('Hello! ✓');
    expect(messageTextOfId('msg_abc', new RequestBudget())).toBeUndefined();
    expect(messageTextOfId('msg_z_!!!', new RequestBudget())).toBeUndefined();
    const request = parseResponsesRequest(
      {
        model: 'bot_1',
        input: [
          { role: 'user', content: 'hi' },
          { type: 'item_reference', id },
          { role: 'user', content: 'again' },
        ],
        text: { format: { type: 'json_schema', name: 'p', schema: { type: 'object' }, strict: true } },
      },
      limits,
    );
    expect(request.completion.turns?.[1]).toEqual({ role: 'assistant', text: 'Hello! ✓' });
    expect(request.completion.jsonSchema).toEqual({ name: 'p', schema: { type: 'object' }, strict: true });
  });

  it.each([
    [{ previous_response_id: 'resp_1' }, 'previous_response_id', 'unsupported_parameter'],
    [{ store: true }, 'store', 'unsupported_parameter'],
    [{ background: true }, 'background', 'unsupported_parameter'],
    [{ conversation: 'conv_1' }, 'conversation', 'unsupported_parameter'],
    [{ tools: [{ type: 'file_search' }] }, 'tools[0].type', 'unsupported_parameter'],
    [{ input: [{ type: 'item_reference', id: 'msg_streamed' }] }, 'input[0]', 'unsupported_parameter'],
    [{ input: [{ type: 'reasoning', id: 'rs_1' }] }, 'input[0].type', 'unsupported_parameter'],
    [
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] },
      'input[0].content[0]',
      'unsupported_parameter',
    ],
    [
      {
        input: [
          { type: 'function_call_output', call_id: 'call_9', output: 'x' },
          { role: 'user', content: 'x' },
        ],
      },
      'input[0].call_id',
      'invalid_value',
    ],
    [{ input: 'x'.repeat(120_001) }, 'messages', 'context_length_exceeded'],
    [{ seed: 3 }, 'seed', 'unknown_parameter'],
    [
      { text: { format: { type: 'json_schema', name: 'p', schema: { type: 'bogus' } } } },
      'text.format.schema',
      'invalid_value',
    ],
  ])('%j → 400 %s %s', (fields, param, code) => {
    expect(refusal(() => parseResponsesRequest({ model: 'bot_1', input: 'hi', ...fields }, limits))).toEqual({
      param,
      code,
    });
  });
});

describe('embeddings', () => {
  it('parses a string or a list; refuses token arrays, empty strings, too many inputs', () => {
    expect(parseEmbeddingsRequest({ model: 'default', input: 'a' })).toEqual({
      model: 'default',
      texts: ['a'],
      base64: false,
    });
    expect(
      parseEmbeddingsRequest({ model: 'bot_1', input: ['a', 'b'], encoding_format: 'base64', dimensions: 64 }),
    ).toEqual({
      model: 'bot_1',
      texts: ['a', 'b'],
      base64: true,
      dimensions: 64,
    });
    expect(refusal(() => parseEmbeddingsRequest({ model: 'default', input: [1, 2, 3] }))).toEqual({
      param: 'input',
      code: 'unsupported_parameter',
    });
    expect(refusal(() => parseEmbeddingsRequest({ model: 'default', input: [[1, 2]] }))).toEqual({
      param: 'input',
      code: 'unsupported_parameter',
    });
    expect(refusal(() => parseEmbeddingsRequest({ model: 'default', input: ['a', ''] }))).toEqual({
      param: 'input[1]',
      code: 'invalid_value',
    });
    expect(refusal(() => parseEmbeddingsRequest({ model: 'default', input: Array(2049).fill('a') }))).toEqual({
      param: 'input',
      code: 'invalid_value',
    });
    expect(refusal(() => parseEmbeddingsRequest({ model: 'default', input: 'a', encoding_format: 'hex' }))).toEqual({
      param: 'encoding_format',
      code: 'invalid_value',
    });
  });

  it('base64 is little-endian float32 of the same numbers', () => {
    const vectors = [Float32Array.from([0.5, -0.25, 1])];
    const out = embeddingsResponse(
      { model: 'default', texts: ['a'], base64: true },
      { vectors, model: 'm', promptTokens: 1 },
    ) as {
      data: { embedding: string }[];
    };
    const bytes = Buffer.from(out.data[0]!.embedding, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4), bytes.readFloatLE(8)]).toEqual([0.5, -0.25, 1]);
  });

  it('the hashed embedding: deterministic, unit length, similar texts closer than unrelated ones', async () => {
    const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    const [a, b, c] = await new HashedEmbeddings().embed(
      ['The store opens at nine', 'When does the store open?', 'Quantum chromodynamics'],
      'document',
    );
    expect(a).toEqual(hashedVector('The store opens at nine', 256));
    expect(cos(a!, a!)).toBeCloseTo(1, 5);
    expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!) + 0.2);
    expect((await new HashedEmbeddings().embed(['x'], 'document', undefined, { dimensions: 32 }))[0]).toHaveLength(32);
  });

  it('an answer is sized before the charge: its worst case never passes the response limit, the largest batch fits', () => {
    const request = (inputs: number, base64: boolean) => ({
      model: 'default',
      texts: Array.from({ length: inputs }, (_, i) => `t${i}`),
      base64,
    });
    // The case: 2,048 inputs of 1,024 dimensions in base64, 11.3 MB.
    expect(embeddingsAnswerBytes(2_048, 1_024, true)).toBeGreaterThan(11_000_000);
    expect(refusal(() => checkEmbeddingsAnswerFits(request(2_048, true), 1_024))).toEqual({
      param: 'input',
      code: 'invalid_value',
    });
    for (const [dimensions, base64] of [
      [256, false],
      [1_024, true],
      [1_024, false],
      [4_096, true],
    ] as const) {
      const largest = largestEmbeddingsBatch(dimensions, base64);
      expect(() => checkEmbeddingsAnswerFits(request(largest, base64), dimensions)).not.toThrow();
      if (largest < 2_048)
        expect(() => checkEmbeddingsAnswerFits(request(largest + 1, base64), dimensions)).toThrow(OpenAiRequestError);
      // The real answer, as the function returns it (a proxy result whose body is the JSON text), of the most
      // expensive numbers a float32 can be written as: within the limit.
      const worst = new Float32Array(dimensions).fill(-0.0000012345678);
      const body = JSON.stringify(
        embeddingsResponse(request(largest, base64), {
          vectors: Array.from({ length: largest }, () => worst),
          model: 'default',
          promptTokens: 1,
        }),
      );
      const proxy = JSON.stringify({ statusCode: 200, headers: { 'content-type': 'application/json' }, body });
      expect(Buffer.byteLength(proxy)).toBeLessThanOrEqual(6 * 1024 * 1024);
    }
  });
});
