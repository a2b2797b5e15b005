import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { mockAwsClient } from '#test/support/aws-client-mock.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { BedrockModelProvider } from '#shared/model-providers/adapters/bedrock-model.ts';
import { OpenAiModelProvider } from '#shared/model-providers/adapters/openai-model.ts';
import { weather, time, history, request, collect } from './tool-fixtures.ts';

/** Tools, tool results and structured output through each adapter (the offline model's: tool-calls-offline). */
describe('Bedrock Converse: toolConfig, toolUse and toolResult blocks', () => {
  const bedrock = mockAwsClient(BedrockRuntimeClient);
  const provider = () =>
    new BedrockModelProvider({
      client: new BedrockRuntimeClient({ region: 'us-east-1' }),
      defaultModelId: 'amazon.nova-lite-v1:0',
    });
  beforeEach(() => bedrock.reset());

  it('sends the functions and the choice; calls and their results become toolUse / toolResult blocks', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [
            { text: 'Let me check.' },
            { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Porto' } } },
            { toolUse: { toolUseId: 'tooluse_2', name: 'get_time', input: { city: 'Porto' } } },
          ],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      metrics: { latencyMs: 1 },
    });
    const reply = await provider().generate(
      request({
        turns: history,
        tools: [weather, time],
        toolChoice: 'required',
        parameters: { top_p: 0.5, stop: ['END'], user: 'u1' },
      }),
    );
    expect(reply.text).toBe('Let me check.');
    expect(reply.toolCalls).toEqual([
      { id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Porto"}' },
      { id: 'tooluse_2', name: 'get_time', arguments: '{"city":"Porto"}' },
    ]);
    expect(reply.stopReason).toBe('tool_use');
    const input = bedrock.commandCalls(ConverseCommand)[0]!.args[0].input;
    expect(input.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'Weather in a city',
            // The client's `$schema` marker is dropped: some model families refuse it.
            inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
          },
        },
        { toolSpec: { name: 'get_time', inputSchema: { json: time.parameters } } },
      ],
      toolChoice: { any: {} },
    });
    expect(input.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather and time in Lisbon?' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 'call_a', name: 'get_weather', input: { city: 'Lisbon' } } },
          { toolUse: { toolUseId: 'call_b', name: 'get_time', input: { city: 'Lisbon' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'call_a', content: [{ text: '22 °C' }] } },
          { toolResult: { toolUseId: 'call_b', content: [{ text: '12:00' }] } },
        ],
      },
    ]);
    expect(input.inferenceConfig).toEqual({ topP: 0.5, stopSequences: ['END'] });
    expect(input.requestMetadata).toEqual({ user: 'u1' });
  });

  it('a named choice is `tool`; `none` sends no tools and tells earlier calls as text; parallel_tool_calls false keeps one', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [
            { toolUse: { toolUseId: 't1', name: 'get_weather', input: {} } },
            { toolUse: { toolUseId: 't2', name: 'get_time', input: {} } },
          ],
        },
      },
      stopReason: 'tool_use',
    });
    const single = await provider().generate(
      request({ tools: [weather, time], toolChoice: { name: 'get_time' }, parallelToolCalls: false }),
    );
    expect(single.toolCalls).toHaveLength(1);
    expect(bedrock.commandCalls(ConverseCommand)[0]!.args[0].input.toolConfig?.toolChoice).toEqual({
      tool: { name: 'get_time' },
    });
    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: 'It is sunny.' }] } },
      stopReason: 'end_turn',
    });
    await provider().generate(request({ turns: history, tools: [weather], toolChoice: 'none' }));
    const none = bedrock.commandCalls(ConverseCommand)[1]!.args[0].input;
    expect(none.toolConfig).toBeUndefined();
    expect(JSON.stringify(none.messages)).not.toContain('toolUse');
    expect(JSON.stringify(none.messages)).toContain('called get_weather');
  });

  it('a model that refuses the tool choice: 400-worthy `unsupported` naming tool_choice', async () => {
    bedrock
      .on(ConverseCommand)
      .rejects(
        new ValidationException({ message: 'This model does not support the toolChoice.any field.', $metadata: {} }),
      );
    await expect(provider().generate(request({ tools: [weather], toolChoice: 'required' }))).rejects.toMatchObject({
      kind: 'unsupported',
      param: 'tool_choice',
    });
  });

  it('a model that refuses the tool definitions or the schema: `unsupported` naming tools / response_format', async () => {
    bedrock.on(ConverseCommand).rejects(
      new ValidationException({
        message: 'The value at toolConfig.tools.0.toolSpec.inputSchema is invalid.',
        $metadata: {},
      }),
    );
    await expect(provider().generate(request({ tools: [weather] }))).rejects.toMatchObject({
      kind: 'unsupported',
      param: 'tools',
    });
    bedrock.reset();
    bedrock.on(ConverseCommand).rejects(
      new ValidationException({
        message: 'outputConfig.textFormat: unsupported keyword patternProperties',
        $metadata: {},
      }),
    );
    await expect(
      provider().generate(
        request({
          model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
          responseFormat: 'json',
          jsonSchema: { name: 'p', schema: { type: 'object' } },
        }),
      ),
    ).rejects.toMatchObject({ kind: 'unsupported', param: 'response_format' });
  });

  it('structured output without native support: a forced tool whose input is the answer', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 't', name: 'person', input: { name: 'Ada' } } }],
        },
      },
      stopReason: 'tool_use',
    });
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const reply = await provider().generate(
      request({ responseFormat: 'json', jsonSchema: { name: 'person', schema } }),
    );
    expect(reply).toMatchObject({ text: '{"name":"Ada"}', stopReason: 'end_turn' });
    expect(reply.toolCalls).toBeUndefined();
    const input = bedrock.commandCalls(ConverseCommand)[0]!.args[0].input;
    expect(input.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'person', inputSchema: { json: schema } } }],
      toolChoice: { any: {} },
    });
    expect(input.outputConfig).toBeUndefined();
  });

  it('streamed structured output by the forced tool comes as text; parallel_tool_calls false drops a second call', async () => {
    async function* events(list: Record<string, unknown>[]) {
      for (const event of list) yield event;
    }
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events([
        { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'a', name: 'person' } } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"name":' } } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '"Ada"}' } } } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { messageStop: { stopReason: 'tool_use' } },
      ]) as never,
    });
    const schema = { type: 'object', properties: { name: { type: 'string' } } };
    expect(
      await collect(provider().stream(request({ responseFormat: 'json', jsonSchema: { name: 'person', schema } }))),
    ).toEqual([
      { type: 'text', text: '{"name":' },
      { type: 'text', text: '"Ada"}' },
      { type: 'end', model: 'bedrock:amazon.nova-lite-v1:0', stopReason: 'end_turn' },
    ]);
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events([
        { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'get_weather' } } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{}' } } } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't2', name: 'get_time' } } } },
        { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{}' } } } },
        { contentBlockStop: { contentBlockIndex: 1 } },
        { messageStop: { stopReason: 'tool_use' } },
      ]) as never,
    });
    const single = await collect(provider().stream(request({ tools: [weather, time], parallelToolCalls: false })));
    expect(single.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', index: 0, id: 't1', name: 'get_weather' },
    ]);
    expect(single.filter((e) => e.type === 'tool-arguments')).toHaveLength(1);
  });

  it('streamed: toolUse block starts and input deltas become calls numbered 0, 1 (text blocks do not count)', async () => {
    async function* events(list: Record<string, unknown>[]) {
      for (const event of list) yield event;
    }
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events([
        { messageStart: { role: 'assistant' } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Checking.' } } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tu_1', name: 'get_weather' } } } },
        { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } },
        { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '"Faro"}' } } } },
        { contentBlockStop: { contentBlockIndex: 1 } },
        { contentBlockStart: { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tu_2', name: 'get_time' } } } },
        { contentBlockStop: { contentBlockIndex: 2 } },
        { messageStop: { stopReason: 'tool_use' } },
        { metadata: { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } } },
      ]) as never,
    });
    expect(await collect(provider().stream(request({ tools: [weather, time] })))).toEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', index: 0, id: 'tu_1', name: 'get_weather' },
      { type: 'tool-arguments', index: 0, text: '{"city":' },
      { type: 'tool-arguments', index: 0, text: '"Faro"}' },
      { type: 'tool-call', index: 1, id: 'tu_2', name: 'get_time' },
      // A call with no input deltas still has an arguments object.
      { type: 'tool-arguments', index: 1, text: '{}' },
      {
        type: 'end',
        model: 'bedrock:amazon.nova-lite-v1:0',
        stopReason: 'tool_use',
        usage: { inputTokens: 3, outputTokens: 4 },
      },
    ]);
  });
});

describe('OpenAI-compatible: tools passed through, calls read back (whole and streamed)', () => {
  it('sends tools, tool_choice, parallel_tool_calls, tool turns and parameters; reads tool_calls', async () => {
    const calls: any[] = [];
    const p = new OpenAiModelProvider({
      baseUrl: 'http://models.test/v1',
      defaultModel: 'm1',
      fetch: (async (_url: string, init: RequestInit) => {
        calls.push(JSON.parse(String(init.body)));
        return Response.json({
          model: 'm1',
          choices: [
            {
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  { id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Nice"}' } },
                ],
              },
              finish_reason: 'tool_calls',
            },
          ],
        });
      }) as unknown as typeof fetch,
    });
    const reply = await p.generate(
      request({
        turns: history,
        tools: [{ ...weather, strict: true }],
        toolChoice: { name: 'get_weather' },
        parallelToolCalls: false,
        parameters: { seed: 7, stop: ['END'], logit_bias: { '50256': -100 } },
      }),
    );
    expect(reply.toolCalls).toEqual([{ id: 'call_x', name: 'get_weather', arguments: '{"city":"Nice"}' }]);
    const body = calls[0];
    expect(body.tools).toEqual([{ type: 'function', function: { ...weather, strict: true } }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(body.parallel_tool_calls).toBe(false);
    expect(body).toMatchObject({ seed: 7, stop: ['END'], logit_bias: { '50256': -100 } });
    expect(body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Weather and time in Lisbon?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"city":"Lisbon"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '22 °C' },
      { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
    ]);
  });

  it('streamed calls are renumbered 0, 1 in the order they start, whatever the server numbered them', async () => {
    const sse = [
      {
        choices: [
          {
            delta: {
              role: 'assistant',
              tool_calls: [{ index: 3, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
            },
          },
        ],
      },
      { choices: [{ delta: { tool_calls: [{ index: 3, function: { arguments: '{"city":"Bern"}' } }] } }] },
      {
        choices: [
          {
            delta: {
              tool_calls: [{ index: 7, id: 'c2', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
            },
          },
        ],
      },
      { choices: [{ delta: {}, finish_reason: 'tool_calls' }] },
    ]
      .map((c) => `data: ${JSON.stringify(c)}\n\n`)
      .join('');
    const p = new OpenAiModelProvider({
      baseUrl: 'http://models.test/v1',
      defaultModel: 'm1',
      fetch: (async () =>
        new Response(`${sse}data: [DONE]\n\n`, {
          headers: { 'content-type': 'text/event-stream' },
        })) as unknown as typeof fetch,
    });
    expect(await collect(p.stream(request({ tools: [weather, time] })))).toEqual([
      { type: 'tool-call', index: 0, id: 'c1', name: 'get_weather' },
      { type: 'tool-arguments', index: 0, text: '{"city":"Bern"}' },
      { type: 'tool-call', index: 1, id: 'c2', name: 'get_time' },
      { type: 'tool-arguments', index: 1, text: '{}' },
      { type: 'end', model: 'openai:m1', stopReason: 'tool_calls' },
    ]);
  });
});
