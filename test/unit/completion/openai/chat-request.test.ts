import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '#shared/completion/api/openai/chat-request.ts';
import { CONVERSATION_MAX_CHARS } from '#shared/completion/api/openai/request-budget.ts';
import { OpenAiRequestError } from '#shared/completion/api/openai/request-errors.ts';
import { threadCpu } from '#test/support/thread-cpu.ts';

/** The Chat Completions request rules, one by one, with OpenAI's `param` and `code` for each refusal. */
const base = { model: 'bot_1', messages: [{ role: 'user', content: 'Hi' }] };
const limits = { maxOutputTokens: 4096 };
/** The completion asked for and how it is sent, side by side, as the assertions read them. */
const parse = (body: Record<string, unknown>) => {
  const { completion, ...transport } = parseChatRequest(body, limits);
  return { ...completion, ...transport };
};
const refusal = (body: Record<string, unknown>) => {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof OpenAiRequestError) return { param: error.param, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('accepted');
};
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const callTurn = (id = 'call_1', args = '{"city":"Lisbon"}') => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: args } }],
});

describe('parseChatRequest', () => {
  it('takes the conversation, system and developer messages as extra instructions, and text parts', () => {
    const request = parse({
      model: 'bot_1',
      messages: [
        { role: 'developer', content: 'Be terse.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'system', content: [{ type: 'text', text: 'Answer in Portuguese.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Refunds?' },
            { type: 'text', text: 'Quickly.' },
          ],
        },
      ],
      temperature: 0,
      max_completion_tokens: 10,
      response_format: { type: 'json_object' },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request).toEqual({
      botId: 'bot_1',
      turns: [
        { role: 'user', text: 'Hi' },
        { role: 'assistant', text: 'Hello!' },
        { role: 'user', text: 'Refunds?\nQuickly.' },
      ],
      prompt: 'Refunds?\nQuickly.',
      extraInstructions: 'Be terse.\n\nAnswer in Portuguese.',
      responseFormat: 'json',
      temperature: 0,
      maxOutputTokens: 10,
      parameters: {},
      stream: true,
      includeUsage: true,
    });
  });

  it('reads the parameters the provider decides on, and null as absent', () => {
    const request = parse({
      ...base,
      user: 'u1',
      store: false,
      metadata: { a: '1' },
      seed: 3,
      top_p: 0.5,
      stop: 'END',
      presence_penalty: 0,
      logprobs: false,
      n: 1,
      temperature: null,
      max_tokens: null,
      stream: null,
      stream_options: null,
    });
    expect(request.parameters).toEqual({
      user: 'u1',
      metadata: { a: '1' },
      seed: 3,
      top_p: 0.5,
      stop: ['END'],
      presence_penalty: 0,
    });
    expect(request).toMatchObject({ stream: false, includeUsage: false, responseFormat: 'text' });
    expect(request.temperature).toBeUndefined();
  });

  it('clamps max_tokens to the deployment maximum (BOT_MAX_OUTPUT_TOKENS)', () => {
    expect(parse({ ...base, max_tokens: 1_000_000 }).maxOutputTokens).toBe(4096);
    expect(parse({ ...base, max_completion_tokens: 100 }).maxOutputTokens).toBe(100);
  });

  it('takes tools, tool_choice, parallel_tool_calls, assistant tool calls and tool results', () => {
    const request = parse({
      model: 'bot_1',
      messages: [
        { role: 'user', content: 'Weather in Lisbon?' },
        // As clients echo our answer back: refusal and annotations (openai), content "" (LangChain).
        { ...callTurn(), content: '', refusal: null, annotations: [] },
        // LangChain adds the function's name to tool messages.
        { role: 'tool', tool_call_id: 'call_1', content: '22 °C', name: 'get_weather' },
      ],
      tools: [weather],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    });
    expect(request.turns).toEqual([
      { role: 'user', text: 'Weather in Lisbon?' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', text: '22 °C' },
    ]);
    expect(request.tools).toEqual([
      { name: 'get_weather', description: 'Weather in a city', parameters: weather.function.parameters },
    ]);
    expect(request.toolChoice).toEqual({ name: 'get_weather' });
    expect(request.parallelToolCalls).toBe(false);
  });

  it('takes json_schema in the dialects clients write (draft-07 from zod, 2020-12 from LangChain, nullable forms)', () => {
    for (const schema of [
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { name: { type: ['string', 'null'] }, age: { type: 'integer', minimum: -9007199254740991 } },
        required: ['name', 'age'],
        additionalProperties: false,
      },
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { name: { anyOf: [{ type: 'string' }, { type: 'null' }], title: 'extract' } },
      },
    ]) {
      const request = parse({
        ...base,
        response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema } },
      });
      expect(request.responseFormat).toBe('json');
      expect(request.jsonSchema).toEqual({ name: 'person', strict: true, schema });
    }
  });

  it('refuses a conversation over 120,000 characters, in the words clients recognise', () => {
    const error = refusal({
      ...base,
      messages: [
        { role: 'system', content: 'x'.repeat(60_000) },
        { role: 'user', content: 'y'.repeat(CONVERSATION_MAX_CHARS - 60_000 + 1) },
      ],
    });
    expect(error).toMatchObject({ param: 'messages', code: 'context_length_exceeded' });
    expect(error.message).toContain('maximum context length');
    // Exactly the budget passes.
    expect(() =>
      parse({ ...base, messages: [{ role: 'user', content: 'y'.repeat(CONVERSATION_MAX_CHARS) }] }),
    ).not.toThrow();
  });

  it('hostile shapes are 400s, never a stack overflow: deep schemas and arguments, huge schemas', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { a: deep } };
    expect(
      refusal({ ...base, tools: [{ type: 'function', function: { name: 'f', parameters: deep } }] }),
    ).toMatchObject({
      param: 'tools',
      code: 'invalid_value',
    });
    expect(
      refusal({ ...base, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: deep } } }),
    ).toMatchObject({ param: 'response_format.json_schema.schema', code: 'invalid_value' });
    // Over one schema's 300 nodes, within the request's 2,000: refused before ajv compiles it.
    const properties = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`p${i}`, { type: 'string' }]));
    // CPU time, not wall time: steady on a machine shared with the rest of the suite.
    const { cpuMs, result } = threadCpu(() =>
      refusal({
        ...base,
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties } } }],
      }),
    );
    expect(result).toMatchObject({ param: 'tools[0].function.parameters', code: 'invalid_value' });
    expect(cpuMs).toBeLessThan(200);
    const args = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    expect(
      refusal({
        ...base,
        tools: [weather],
        messages: [
          { role: 'user', content: 'x' },
          callTurn('call_1', args),
          { role: 'tool', tool_call_id: 'call_1', content: 'r' },
        ],
      }),
    ).toMatchObject({ param: 'messages[1].tool_calls[0].function.arguments', code: 'invalid_value' });
  });

  it.each([
    [{ functions: [{ name: 'f' }] }, 'functions', 'unsupported_parameter'],
    [{ n: 3 }, 'n', 'unsupported_parameter'],
    [{ logprobs: true }, 'logprobs', 'unsupported_parameter'],
    [{ store: true }, 'store', 'unsupported_parameter'],
    [{ audio: { voice: 'alloy', format: 'mp3' } }, 'audio', 'unsupported_parameter'],
    [{ modalities: ['text', 'audio'] }, 'modalities', 'unsupported_parameter'],
    [{ frobnicate: 1 }, 'frobnicate', 'unknown_parameter'],
    [
      { response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
      'response_format.json_schema.schema',
      'missing_required_parameter',
    ],
    [
      { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'strng' } } } },
      'response_format.json_schema.schema',
      'invalid_value',
    ],
    [{ response_format: { type: 'yaml' } }, 'response_format.type', 'invalid_value'],
    [{ temperature: -0.1 }, 'temperature', 'invalid_value'],
    [{ temperature: 2.01 }, 'temperature', 'invalid_value'],
    [{ top_p: 1.5 }, 'top_p', 'invalid_value'],
    [{ stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', 'invalid_value'],
    [{ max_tokens: 0 }, 'max_tokens', 'invalid_value'],
    [{ max_completion_tokens: 1.5 }, 'max_completion_tokens', 'invalid_value'],
    [{ stream_options: { include_usage: true } }, 'stream_options', 'invalid_value'],
    [{ model: undefined }, 'model', 'missing_required_parameter'],
    [{ messages: [] }, 'messages', 'invalid_value'],
    [{ messages: [{ role: 'assistant', content: 'Hello' }] }, 'messages', 'missing_required_parameter'],
    [{ messages: [{ role: 'user', content: '   ' }] }, 'messages', 'missing_required_parameter'],
    [{ messages: [{ role: 'user', content: 'x', name: 'ann' }] }, 'messages[0].name', 'unsupported_parameter'],
    [{ messages: [{ role: 'user', content: 'x', colour: 'red' }] }, 'messages[0].colour', 'unknown_parameter'],
    [{ messages: [{ role: 'function', content: 'x', name: 'f' }] }, 'messages[0].role', 'unsupported_parameter'],
    [
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] }] },
      'messages[0].content[0]',
      'unsupported_parameter',
    ],
    [{ messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role', 'invalid_value'],
    // Tools: malformed definitions, choices that name nothing, results for unknown calls, arguments that are not JSON.
    [{ tools: [{ type: 'custom', custom: { name: 'f' } }] }, 'tools[0].type', 'unsupported_parameter'],
    [{ tools: [{ type: 'function', function: { name: 'bad name!' } }] }, 'tools[0].function.name', 'invalid_value'],
    [
      {
        tools: [
          {
            type: 'function',
            function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'nope' } } } },
          },
        ],
      },
      'tools[0].function.parameters',
      'invalid_value',
    ],
    [
      { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] },
      'tools[0].function.parameters',
      'invalid_value',
    ],
    [{ tools: [weather, weather] }, 'tools[1]', 'invalid_value'],
    [
      { tools: [weather], tool_choice: { type: 'function', function: { name: 'other' } } },
      'tool_choice',
      'invalid_value',
    ],
    [{ tool_choice: 'required' }, 'tool_choice', 'invalid_value'],
    [{ tools: [weather], tool_choice: { type: 'allowed_tools' } }, 'tool_choice', 'unsupported_parameter'],
    [{ parallel_tool_calls: false }, 'parallel_tool_calls', 'invalid_value'],
    [
      {
        tools: [weather],
        messages: [{ role: 'user', content: 'x' }, callTurn(), { role: 'tool', tool_call_id: 'call_9', content: 'r' }],
      },
      'messages[2].tool_call_id',
      'invalid_value',
    ],
    [
      {
        tools: [weather],
        messages: [
          { role: 'user', content: 'x' },
          callTurn('call_1', '{"city":'),
          { role: 'tool', tool_call_id: 'call_1', content: 'r' },
        ],
      },
      'messages[1].tool_calls[0].function.arguments',
      'invalid_value',
    ],
    [
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', content: 'r' },
        ],
      },
      'messages[1].tool_call_id',
      'missing_required_parameter',
    ],
  ])('%j → 400 %s %s', (fields, param, code) => {
    expect(refusal({ ...base, ...fields })).toMatchObject({ param, code });
  });
});
