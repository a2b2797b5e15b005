import { type AIMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { OpenAIEmbeddings } from '@langchain/openai';
import { BadRequestError } from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventually } from '#test/support/eventually.ts';
import {
  svc,
  model,
  marker,
  projectWithBot,
  weatherTool,
  Person,
  useToolDoubleService,
} from './ai-ecosystem-support.ts';

/** LangChain, unmodified, against the running service; then what every client meets: bad input answered as a 400 in
 * OpenAI's shape naming the parameter, nothing charged, and billing that cannot be gamed. */
useToolDoubleService();

/** LangChain's tool for `get_weather`, answering `<weather> in <city>`. */
const langchainWeather = (weather: string) =>
  langchainTool(async ({ city }: { city: string }) => `${weather} in ${city}`, {
    name: 'get_weather',
    description: 'Weather in a city',
    schema: z.object({ city: z.string() }),
  });

/** A chat after the model called `get_weather` once (id `call_1`, these `args`), with a tool result for `resultFor`. */
const afterWeatherCall = (args: string, resultFor: string) => ({
  tools: [weatherTool],
  messages: [
    { role: 'user', content: 'hi' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: args } }],
    },
    { role: 'tool', tool_call_id: resultFor, content: 'x' },
  ],
});

describe('LangChain', () => {
  it('ChatOpenAI: invoke, stream, bindTools with tool results, withStructuredOutput (json schema and function calling)', async () => {
    const { langchain } = await projectWithBot();
    expect((await langchain().invoke('Hi')).content).toBe('Echo: Hi');
    let streamed = '';
    for await (const chunk of await langchain().stream('Hello there')) streamed += chunk.content;
    expect(streamed).toBe('Echo: Hello there');

    const weather = langchainWeather('windy');
    const withTools = langchain().bindTools([weather]);
    const history = [new HumanMessage('Weather in Dublin?')];
    const ai = await withTools.invoke(history);
    expect(ai.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'Dublin' } })]);
    const result = (await weather.invoke(ai.tool_calls![0]!)) as ToolMessage;
    const final = await withTools.invoke([...history, ai as AIMessage, result]);
    expect(final.content).toBe('Results: windy in Dublin');

    const chunks = [];
    for await (const chunk of await langchain().bindTools([weather]).stream('Weather in Cork')) chunks.push(chunk);
    const merged = chunks.reduce((a, b) => a.concat(b));
    expect(merged.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'Cork' } })]);

    expect(await langchain().withStructuredOutput(Person).invoke('A person called Edsger')).toEqual({
      name: 'Edsger',
      age: 1,
    });
    expect(
      await langchain()
        .withStructuredOutput(Person, { method: 'functionCalling', name: 'person' })
        .invoke('A person called Tony'),
    ).toEqual({ name: 'Tony', age: 1 });
  });

  it('ChatOpenAI with useResponsesApi: invoke, tools, structured output', async () => {
    const { langchain } = await projectWithBot();
    const model = langchain({ useResponsesApi: true });
    expect((await model.invoke('Hi')).text).toBe('Echo: Hi');
    const weather = langchainWeather('rainy');
    const withTools = model.bindTools([weather]);
    const history = [new HumanMessage('Weather in Bergen?')];
    const ai = await withTools.invoke(history);
    expect(ai.tool_calls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Bergen' } });
    const result = (await weather.invoke(ai.tool_calls![0]!)) as ToolMessage;
    expect((await withTools.invoke([...history, ai, result])).text).toBe('Results: rainy in Bergen');
    expect(await model.withStructuredOutput(Person).invoke('A person called Frances')).toEqual({
      name: 'Frances',
      age: 1,
    });
  });

  it('OpenAIEmbeddings: embedQuery and embedDocuments (base64 on the wire)', async () => {
    const { token, botId, baseURL } = await projectWithBot();
    const embeddings = new OpenAIEmbeddings({ model: botId, apiKey: token, configuration: { baseURL } });
    expect(await embeddings.embedQuery('hello')).toHaveLength(8);
    const docs = await embeddings.embedDocuments(['one', 'two', 'three']);
    expect(docs).toHaveLength(3);
  });
});

describe('bad input: a 400 in OpenAI’s shape naming the parameter, nothing charged', () => {
  it('malformed tool schemas, unknown tool call ids, arguments that are not JSON, schemas ajv rejects, unsupported Responses features', async () => {
    const { openai, botId, balance } = await projectWithBot(5);
    const before = model.received.length;
    const chat = (fields: Record<string, unknown>) =>
      openai.chat.completions
        .create({ model: botId, messages: [{ role: 'user', content: 'hi' }], ...fields } as never)
        .then(
          () => undefined,
          (e: unknown) => e as BadRequestError,
        );
    const responses = (fields: Record<string, unknown>) =>
      openai.responses.create({ model: botId, input: 'hi', ...fields } as never).then(
        () => undefined,
        (e: unknown) => e as BadRequestError,
      );
    const cases: [Promise<BadRequestError | undefined>, string, string][] = [
      [
        chat({
          tools: [
            {
              type: 'function',
              function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'nope' } } } },
            },
          ],
        }),
        'tools[0].function.parameters',
        'invalid_value',
      ],
      [chat(afterWeatherCall('{}', 'call_unknown')), 'messages[2].tool_call_id', 'invalid_value'],
      [
        chat(afterWeatherCall('city=Lisbon', 'call_1')),
        'messages[1].tool_calls[0].function.arguments',
        'invalid_value',
      ],
      [
        chat({
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'x', schema: { type: 'object', required: 'a' } },
          },
        }),
        'response_format.json_schema.schema',
        'invalid_value',
      ],
      [chat({ n: 2 }), 'n', 'unsupported_parameter'],
      [responses({ previous_response_id: 'resp_1' }), 'previous_response_id', 'unsupported_parameter'],
      [responses({ store: true }), 'store', 'unsupported_parameter'],
      [responses({ background: true }), 'background', 'unsupported_parameter'],
      [responses({ tools: [{ type: 'web_search' }] }), 'tools[0].type', 'unsupported_parameter'],
      [responses({ input: [{ type: 'item_reference', id: 'msg_abc' }] }), 'input[0]', 'unsupported_parameter'],
    ];
    for (const [work, param, code] of cases) {
      const error = await work;
      expect(error, param).toBeInstanceOf(BadRequestError);
      expect(error!.error, param).toMatchObject({ type: 'invalid_request_error', param, code });
    }
    expect(model.received.length).toBe(before);
    expect(await balance()).toBe(5);
  });

  it('over 120,000 characters of messages: 400 context_length_exceeded; a huge max_tokens is clamped, not refused', async () => {
    const { openai, botId, balance } = await projectWithBot(5);
    const error = await openai.chat.completions
      .create({ model: botId, messages: [{ role: 'user', content: 'x'.repeat(120_001) }] })
      .catch((e: unknown) => e as BadRequestError);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).error).toMatchObject({ param: 'messages', code: 'context_length_exceeded' });
    const m = marker();
    await openai.chat.completions.create({
      model: botId,
      max_tokens: 1_000_000,
      messages: [{ role: 'user', content: m }],
    });
    expect(model.find(m)[0]!.body.max_tokens).toBe(4096);
    expect(await balance()).toBe(4);
  });
});

describe('billing that cannot be gamed', () => {
  const post = (token: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${svc.baseUrl}/api/v1/ai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });

  it('the reviewer’s case: a whole 200-word answer read, a hang-up before the model’s end event: charged', async () => {
    const { token, botId, balance } = await projectWithBot(3);
    const controller = new AbortController();
    const response = await post(
      token,
      { model: botId, stream: true, messages: [{ role: 'user', content: `#words=200 #tailpause=3000 ${marker()}` }] },
      controller.signal,
    );
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/w\d+/g) ?? []).length < 200) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const line of decoder.decode(value, { stream: true }).split('\n'))
        if (line.startsWith('data: {')) text += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? '';
    }
    expect(text.split(' ')).toHaveLength(200);
    controller.abort();
    // Settled once the service notices; the sweeper would refund an open charge, never a settled one.
    const deadline = Date.now() + 5_000;
    let after = await balance();
    while (after !== 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await balance();
    }
    expect(after).toBe(2);
  });

  it('a client that leaves before any text, once the model was called, is charged; the call aborted at once', async () => {
    const { token, botId, balance } = await projectWithBot(3);
    const m = marker();
    const controller = new AbortController();
    const pending = post(
      token,
      { model: botId, stream: true, messages: [{ role: 'user', content: `#late=10000 ${m}` }] },
      controller.signal,
    ).catch((e: unknown) => e);
    await eventually(async () => (model.find(m).length > 0 ? true : undefined), 5_000, 'the model called');
    const left = performance.now();
    controller.abort();
    await pending;
    await eventually(
      async () => (model.abandoned.some((r) => r.prompt.includes(m)) ? true : undefined),
      5_000,
      'aborted',
    );
    expect(performance.now() - left).toBeLessThan(1_000);
    await eventually(async () => ((await balance()) === 2 ? true : undefined), 5_000, 'charged');
  });
});
