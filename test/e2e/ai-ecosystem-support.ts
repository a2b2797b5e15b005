import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect } from 'vitest';
import { z } from 'zod';
import type { TestService } from '#test/support/service.ts';
import { startServiceOnToolDouble, type ToolModelDouble } from './tool-model-double.ts';

/**
 * The service and helpers of the AI ecosystem tests (ai-ecosystem.test.ts, ai-ecosystem-langchain.test.ts), each
 * file calling {@link useToolDoubleService} once (a service of its own on the tool-calling model double). The AI
 * ecosystem's clients, unmodified, against the running service: the `openai` SDK, the Vercel AI SDK
 * (`@ai-sdk/openai`: `openai(id)` = Responses, `openai.chat(id)` = Chat Completions; `@ai-sdk/openai-compatible`) and
 * LangChain (`ChatOpenAI`, with and without `useResponsesApi`; `OpenAIEmbeddings`), pointed at `{base_url}/api/v1/ai`
 * with the project token and a bot id as the model. The bot's model is an OpenAI-compatible double that calls tools
 * (`tool-model-double.ts`), so the whole chain runs: client → gateway → function → use case → adapter → double, and
 * back.
 */
export let svc: TestService;
export let model: ToolModelDouble;

let seq = 0;
export const marker = () => `m${++seq}x${Math.random().toString(36).slice(2, 8)}`;

export async function projectWithBot(credits = 20) {
  const project = await svc.newProject({ monthlyBotCredits: credits });
  const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, {
    name: 'Agent',
    instructions: 'You are the travel agent.',
  });
  expect(bot.status).toBe(201);
  const baseURL = `${svc.baseUrl}/api/v1/ai`;
  return {
    ...project,
    botId: bot.body.botId as string,
    baseURL,
    openai: new OpenAI({ baseURL, apiKey: project.token, maxRetries: 0 }),
    vercel: createOpenAI({ baseURL, apiKey: project.token }),
    compat: createOpenAICompatible({
      name: 'switchboard',
      baseURL,
      apiKey: project.token,
      includeUsage: true,
      supportsStructuredOutputs: true,
    }),
    langchain: (extra: Record<string, unknown> = {}) =>
      new ChatOpenAI({
        model: bot.body.botId,
        apiKey: project.token,
        configuration: { baseURL },
        maxRetries: 0,
        ...extra,
      }),
    balance: () => svc.botBalance(project.projectId),
  };
}

export const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};
export const timeTool = {
  type: 'function' as const,
  function: {
    name: 'get_time',
    description: 'Local time in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
export const Person = z.object({ name: z.string(), age: z.number().int() });

/** Registers the file's hooks: a service of its own on the tool-calling model double, both closed after its tests. */
export function useToolDoubleService(): void {
  beforeAll(async () => {
    ({ svc, model } = await startServiceOnToolDouble({ BOT_RATE_LIMIT_PER_MINUTE: '1000' }));
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await model?.close();
  });
}
