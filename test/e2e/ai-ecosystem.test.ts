import { embed, embedMany, generateText, Output, stepCountIs, streamText, tool } from 'ai';
import OpenAI, { type APIError, NotFoundError } from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  model,
  marker,
  projectWithBot,
  weatherTool,
  timeTool,
  Person,
  useToolDoubleService,
} from './ai-ecosystem-support.ts';

/** The `openai` SDK (Chat Completions with tools and structured output, Responses, embeddings, models) and the Vercel
 * AI SDK, unmodified, against the running service. */
useToolDoubleService();

describe('openai SDK: Chat Completions with tools and structured output', () => {
  it('plain and streamed chat, one credit each', async () => {
    const { openai, botId, balance } = await projectWithBot();
    const answer = await openai.chat.completions.create({ model: botId, messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.choices[0]!.message.content).toBe('Echo: Hi');
    const stream = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: 'Hello there' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage ??= chunk.usage;
    }
    expect(text).toBe('Echo: Hello there');
    expect(usage).toMatchObject({ prompt_tokens: 11 });
    expect(await balance()).toBe(18);
  });

  it('tools: a call with finish_reason tool_calls, its result in the next turn, and what the model received', async () => {
    const { openai, botId, balance } = await projectWithBot();
    const m = marker();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: `Weather in Lisbon? ${m}` },
    ];
    const first = await openai.chat.completions.create({ model: botId, messages, tools: [weatherTool] });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Lisbon' });
    // The assistant message goes back as the SDK gave it (refusal, annotations echoed), then the tool's result.
    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '22 °C and sunny' });
    const second = await openai.chat.completions.create({ model: botId, messages, tools: [weatherTool] });
    expect(second.choices[0]!.message.content).toBe('Results: 22 °C and sunny');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(await balance()).toBe(18);

    const [sentFirst, sentSecond] = model.find(m);
    expect(sentFirst!.body.tools).toEqual([weatherTool]);
    expect(sentFirst!.body.messages![0]).toMatchObject({ role: 'system', content: 'You are the travel agent.' });
    expect(sentSecond!.body.messages!.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call.id, type: 'function', function: { name: 'get_weather', arguments: call.function.arguments } },
        ],
      },
      { role: 'tool', tool_call_id: call.id, content: '22 °C and sunny' },
    ]);
  });

  it('tool_choice (named, required, none) and parallel_tool_calls reach the model', async () => {
    const { openai, botId } = await projectWithBot();
    const m = marker();
    const ask = (extra: Partial<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming>) =>
      openai.chat.completions.create({
        model: botId,
        messages: [{ role: 'user', content: `Time and weather in Porto #parallel ${m}` }],
        tools: [weatherTool, timeTool],
        ...extra,
      });
    const named = await ask({ tool_choice: { type: 'function', function: { name: 'get_time' } } });
    expect(
      named.choices[0]!.message.tool_calls!.map((c) => (c as { function: { name: string } }).function.name),
    ).toEqual(['get_time']);
    const parallel = await ask({ tool_choice: 'required' });
    expect(parallel.choices[0]!.message.tool_calls).toHaveLength(2);
    const single = await ask({ parallel_tool_calls: false });
    expect(single.choices[0]!.message.tool_calls).toHaveLength(1);
    const none = await ask({ tool_choice: 'none' });
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
    const sent = model.find(m).map((r) => [r.body.tool_choice, r.body.parallel_tool_calls]);
    expect(sent).toEqual([
      [{ type: 'function', function: { name: 'get_time' } }, undefined],
      ['required', undefined],
      [undefined, false],
      ['none', undefined],
    ]);
  });

  it('streamed tool calls: delta.tool_calls with index, id, type and name on the first piece; the stream helper assembles them', async () => {
    const { openai, botId } = await projectWithBot();
    const raw = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: 'Weather and time in Madrid #parallel' }],
      tools: [weatherTool, timeTool],
      stream: true,
    });
    const pieces: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    let role: string | undefined;
    for await (const chunk of raw) {
      role ??= chunk.choices[0]?.delta.role;
      pieces.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(role).toBe('assistant');
    expect(finish).toBe('tool_calls');
    const starts = pieces.filter((p) => p.id);
    expect(starts.map((p) => [p.index, p.type, p.function?.name])).toEqual([
      [0, 'function', 'get_weather'],
      [1, 'function', 'get_time'],
    ]);
    const args = [0, 1].map((i) =>
      pieces
        .filter((p) => p.index === i)
        .map((p) => p.function?.arguments ?? '')
        .join(''),
    );
    expect(args.map((a) => JSON.parse(a))).toEqual([{ city: 'Madrid' }, { city: 'Madrid' }]);

    const helper = openai.chat.completions.stream({
      model: botId,
      messages: [{ role: 'user', content: 'Weather in Rome' }],
      tools: [weatherTool],
    });
    const final = await helper.finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls![0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
    });
  });

  it('JSON mode and strict JSON schema (parse helper, streamed too)', async () => {
    const { openai, botId, balance } = await projectWithBot();
    const json = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: 'JSON please' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(json.choices[0]!.message.content!)).toEqual({ answer: 42, ok: true });
    const m = marker();
    const parsed = await openai.chat.completions.parse({
      model: botId,
      messages: [{ role: 'user', content: `A person called Ada ${m}` }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect(parsed.choices[0]!.message.parsed).toEqual({ name: 'Ada', age: 1 });
    expect(model.find(m)[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'person', strict: true },
    });
    const streamed = openai.chat.completions.stream({
      model: botId,
      messages: [{ role: 'user', content: 'A person called Grace' }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect((await streamed.finalChatCompletion()).choices[0]!.message.parsed).toEqual({ name: 'Grace', age: 1 });
    expect(await balance()).toBe(17);
  });

  it('a JSON Schema answer invalid once is asked for again (one credit); invalid twice is 502 server_error, charged', async () => {
    const { openai, botId, balance } = await projectWithBot();
    const m = marker();
    const once = await openai.chat.completions.parse({
      model: botId,
      messages: [{ role: 'user', content: `A person #badonce ${m}` }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect(once.choices[0]!.message.parsed).toMatchObject({ age: 1 });
    expect(model.find(m)).toHaveLength(2);
    expect(await balance()).toBe(19);
    for (const stream of [false, true]) {
      const error = await openai.chat.completions
        .create({
          model: botId,
          stream,
          messages: [{ role: 'user', content: `A person #badschema ${marker()}` }],
          response_format: zodResponseFormat(Person, 'person'),
        })
        .then(
          () => undefined,
          (e: unknown) => e as APIError,
        );
      expect(error?.status).toBe(502);
      expect(error?.error).toMatchObject({ type: 'server_error', code: 'server_error' });
      // The schema rule broken, never what the model wrote.
      expect((error?.error as { message?: string } | undefined)?.message).toMatch(
        /#\/required: must have required property 'name'/,
      );
      expect(error?.headers?.get('x-should-retry')).toBe('false');
    }
    // The model answered twice each time; the caller's own schema refused it: both requests are charged.
    expect(await balance()).toBe(17);
  });
});

describe('openai SDK: Responses, embeddings, models', () => {
  it('Responses: text, streamed text with the named events, function calls and their outputs, JSON schema', async () => {
    const { openai, botId, balance } = await projectWithBot();
    const text = await openai.responses.create({ model: botId, input: 'Hi', instructions: 'Be brief.' });
    expect(text.object).toBe('response');
    expect(text.output_text).toBe('Echo: Hi');
    expect(text.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });

    const stream = await openai.responses.create({ model: botId, input: 'Hello there', stream: true });
    const types: string[] = [];
    let streamed = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') streamed += event.delta;
    }
    expect(streamed).toBe('Echo: Hello there');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types.indexOf('response.output_item.added')).toBeLessThan(types.indexOf('response.output_text.delta'));
    expect(types.indexOf('response.content_part.added')).toBeLessThan(types.indexOf('response.output_text.delta'));

    const tools: OpenAI.Responses.Tool[] = [
      { type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters, strict: true },
    ];
    const first = await openai.responses.create({ model: botId, input: 'Weather in Oslo?', tools });
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' });
    const second = await openai.responses.create({
      model: botId,
      tools,
      input: [
        { role: 'user', content: 'Weather in Oslo?' },
        ...first.output,
        { type: 'function_call_output', call_id: call.call_id, output: '-3 °C' },
      ] as OpenAI.Responses.ResponseInput,
    });
    expect(second.output_text).toBe('Results: -3 °C');

    const helper = openai.responses.stream({
      model: botId,
      input: 'A person called Linus',
      text: { format: zodTextFormat(Person, 'person') },
    });
    expect((await helper.finalResponse()).output_parsed).toEqual({ name: 'Linus', age: 1 });
    expect(await balance()).toBe(15);
  });

  it('embeddings: a string and a list, float and base64 (the SDK’s default), one credit per request', async () => {
    const { openai, botId, balance } = await projectWithBot();
    const one = await openai.embeddings.create({ model: botId, input: 'hello world' });
    expect(one.data).toHaveLength(1);
    expect(one.data[0]!.embedding).toHaveLength(8);
    const list = await openai.embeddings.create({
      model: 'default',
      input: ['a', 'bb', 'ccc'],
      encoding_format: 'float',
    });
    expect(list.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(list.data[2]!.embedding).not.toEqual(list.data[0]!.embedding);
    // base64 asked explicitly: the SDK hands the string over; it decodes to the same numbers as float.
    const b64 = await openai.embeddings.create({ model: botId, input: ['a', 'bb', 'ccc'], encoding_format: 'base64' });
    const bytes = Buffer.from(b64.data[1]!.embedding as unknown as string, 'base64');
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    expect(decoded.map((x) => x.toFixed(4))).toEqual(list.data[1]!.embedding.map((x) => Math.fround(x).toFixed(4)));
    expect(await balance()).toBe(17);
    const sent = model.received.filter((r) => r.path === '/v1/embeddings').at(-1)!;
    expect(sent.body.input).toEqual(['a', 'bb', 'ccc']);
  });

  it('models.retrieve(botId) is the model object; an unknown id is NotFoundError model_not_found', async () => {
    const { openai, botId, projectId } = await projectWithBot();
    expect(await openai.models.retrieve(botId)).toMatchObject({ id: botId, object: 'model', owned_by: projectId });
    const error = await openai.models.retrieve('bot_nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).error).toMatchObject({ code: 'model_not_found', param: 'model' });
    const other = await projectWithBot();
    expect(await openai.models.retrieve(other.botId).catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
    // Paths no route serves, under the OpenAI-format routes: OpenAI's body too.
    const retrieve = await openai.responses.retrieve('resp_123').catch((e: unknown) => e);
    expect(retrieve).toBeInstanceOf(NotFoundError);
    expect((retrieve as NotFoundError).error).toMatchObject({ type: 'invalid_request_error', code: 'not_found' });
  });
});

describe('Vercel AI SDK', () => {
  it('openai.chat(id) and openai-compatible: text, stream, multi-step tools with parallel calls, structured output', async () => {
    const { vercel, compat, botId, balance } = await projectWithBot(40);
    const weather = tool({
      description: 'Weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    const time = tool({
      description: 'Local time in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async () => '12:00',
    });
    for (const provider of [vercel.chat(botId), compat.chatModel(botId)]) {
      expect((await generateText({ model: provider, prompt: 'Hi' })).text).toBe('Echo: Hi');
      const streamed = streamText({ model: provider, prompt: 'Hello there' });
      expect(await streamed.text).toBe('Echo: Hello there');
      expect((await streamed.usage).inputTokens).toBe(11);
      const agent = await generateText({
        model: provider,
        prompt: 'Weather and time in Lima #parallel',
        tools: { get_weather: weather, get_time: time },
        stopWhen: stepCountIs(3),
      });
      expect(agent.steps[0]!.toolCalls.map((c) => c.toolName).sort()).toEqual(['get_time', 'get_weather']);
      expect(agent.text).toBe('Results: sunny in Lima | 12:00');
      const streamedAgent = streamText({
        model: provider,
        prompt: 'Weather in Quito',
        tools: { get_weather: weather },
        stopWhen: stepCountIs(2),
      });
      expect(await streamedAgent.text).toBe('Results: sunny in Quito');
      const object = await generateText({
        model: provider,
        output: Output.object({ schema: Person }),
        prompt: 'A person called Alan',
      });
      expect(object.output).toEqual({ name: 'Alan', age: 1 });
    }
    // Per provider: text, stream, two agent steps, two streamed agent steps, the object: 7 requests, 7 credits.
    expect(await balance()).toBe(40 - 2 * 7);
  });

  it('openai(id) (the Responses API, the default provider): text, stream, tools, structured output, multi-turn by item_reference', async () => {
    const { vercel, botId } = await projectWithBot();
    const provider = vercel(botId);
    const first = await generateText({ model: provider, system: 'Be terse.', prompt: 'Hi' });
    expect(first.text).toBe('Echo: Hi');
    // The earlier assistant turn goes back as an item_reference to our message id: it carries its own text.
    const second = await generateText({
      model: provider,
      messages: [{ role: 'user', content: 'Hi' }, ...first.response.messages, { role: 'user', content: 'and again' }],
    });
    expect(second.text).toBe('Echo: and again');
    const stream = streamText({ model: provider, prompt: 'Hello there' });
    expect(await stream.text).toBe('Echo: Hello there');
    const agent = await generateText({
      model: provider,
      prompt: 'Weather in Accra',
      tools: {
        get_weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `hot in ${city}`,
        }),
      },
      stopWhen: stepCountIs(2),
    });
    expect(agent.text).toBe('Results: hot in Accra');
    const object = await generateText({
      model: provider,
      output: Output.object({ schema: Person }),
      prompt: 'A person called Barbara',
    });
    expect(object.output).toEqual({ name: 'Barbara', age: 1 });
  });

  it('embed and embedMany (floats, as Vercel asks)', async () => {
    const { vercel, botId } = await projectWithBot();
    const one = await embed({ model: vercel.embedding(botId), value: 'sunny day' });
    expect(one.embedding).toHaveLength(8);
    const many = await embedMany({ model: vercel.embedding('default'), values: ['a', 'b', 'c'] });
    expect(many.embeddings).toHaveLength(3);
  });
});
