import OpenAI, { BadRequestError } from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * The same clients on a laptop with nothing connected: the offline model (the local default) calls functions and
 * answers JSON Schemas deterministically, and the hashed embedding answers `/embeddings`, so an agent can be written
 * and tested without a model. Parameters the offline model cannot honour are refused, naming them, nothing charged.
 */
let svc: ServiceClient;

beforeAll(async () => {
  svc = await sharedService();
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

async function projectWithBot(credits = 10) {
  const project = await svc.newProject({ monthlyBotCredits: credits });
  const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, {
    name: 'Agent',
    instructions: 'Be brief.',
  });
  return {
    botId: bot.body.botId as string,
    openai: new OpenAI({ baseURL: `${svc.baseUrl}/api/v1/ai`, apiKey: project.token, maxRetries: 0 }),
    balance: () => svc.botBalance(project.projectId),
  };
}

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('the offline model through the OpenAI-format routes', () => {
  it('a tool round trip, streamed calls, a JSON Schema answer, Responses and embeddings', async () => {
    const { botId, openai, balance } = await projectWithBot();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is the weather in Recife?' },
    ];
    const first = await openai.chat.completions.create({ model: botId, messages, tools: [weather] });
    const call = first.choices[0]!.message
      .tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Recife' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '31 °C' });
    const second = await openai.chat.completions.create({ model: botId, messages, tools: [weather] });
    expect(second.choices[0]!.message.content).toContain('get_weather: 31 °C');

    const streamed = await openai.chat.completions
      .stream({ model: botId, messages: [{ role: 'user', content: 'Weather in Natal?' }], tools: [weather] })
      .finalChatCompletion();
    expect(streamed.choices[0]!.message.tool_calls![0]).toMatchObject({ function: { arguments: '{"city":"Natal"}' } });

    const Person = z.object({ name: z.string(), age: z.number().int().min(18) });
    const parsed = await openai.chat.completions.parse({
      model: botId,
      messages: [{ role: 'user', content: 'Invent a person called Clarice' }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect(parsed.choices[0]!.message.parsed).toEqual({ name: 'Clarice', age: 18 });

    const response = await openai.responses.create({ model: botId, input: 'Hello' });
    expect(response.output_text).toMatch(/^\[offline model\]/);
    const embeddings = await openai.embeddings.create({
      model: 'default',
      input: ['store hours', 'store opening hours'],
    });
    expect(embeddings.data).toHaveLength(2);
    expect(embeddings.data[0]!.embedding).toHaveLength(256);
    expect(await balance()).toBe(4);
  });

  it('what the offline model cannot honour is 400 unsupported_parameter naming it; nothing charged', async () => {
    const { botId, openai, balance } = await projectWithBot(3);
    for (const [fields, param] of [
      [{ temperature: 0.7 }, 'temperature'],
      [{ top_p: 0.5 }, 'top_p'],
      [{ user: 'customer-1' }, 'user'],
      [{ reasoning_effort: 'low' }, 'reasoning_effort'],
    ] as const) {
      const error = await openai.chat.completions
        .create({ model: botId, messages: [{ role: 'user', content: 'hi' }], ...fields })
        .catch((e: unknown) => e);
      expect(error, param).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).error).toMatchObject({ param, code: 'unsupported_parameter' });
    }
    // What it does honour: a seed (it is deterministic), stop sequences, temperature 0.
    const ok = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: 'hi' }],
      seed: 4,
      stop: ['outline'],
      temperature: 0,
    });
    expect(ok.choices[0]!.message.content).not.toContain('outline');
    expect(await balance()).toBe(2);
  });
});
