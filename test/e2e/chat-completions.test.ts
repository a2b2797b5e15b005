import OpenAI, {
  APIError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { type SharedModelDouble, sharedModelDouble } from '#test/support/model-double.ts';

/**
 * The Bots API in OpenAI's wire format, with the official `openai` npm package as the client against the running
 * local service, and an OpenAI-compatible HTTP double as the upstream model (it streams SSE when asked), so the
 * whole chain streams: double → model adapter → use case → function → local gateway → client.
 */
let svc: ServiceClient;
let model: SharedModelDouble;

/** The model group's BOT_RATE_LIMIT_PER_MINUTE (the default). */
const RATE_LIMIT = 60;

beforeAll(async () => {
  svc = await sharedService();
  model = sharedModelDouble();
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

let seq = 0;
const marker = () => `chat-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
const client = (token: string) => new OpenAI({ baseURL: `${svc.baseUrl}/api/v1/ai`, apiKey: token, maxRetries: 0 });
const balance = (projectId: string) => svc.botBalance(projectId);

async function projectWithBot(credits = 5, instructions = 'You are the store assistant.') {
  const project = await svc.newProject({ monthlyBotCredits: credits });
  const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'Store', instructions });
  expect(bot.status).toBe(201);
  return { ...project, botId: bot.body.botId as string, openai: client(project.token) };
}

describe('POST /api/v1/ai/chat/completions (openai client)', () => {
  it('answers a conversation as a chat.completion, charges 1 credit, and sends the history as turns', async () => {
    const { projectId, botId, openai } = await projectWithBot();
    const m = marker();
    const completion = await openai.chat.completions.create({
      model: botId,
      messages: [
        { role: 'system', content: 'Answer in Portuguese.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: [{ type: 'text', text: `Refunds? ${m}` }] },
      ],
      user: 'customer-42',
      store: false,
      seed: 7,
      metadata: { ticket: '1' },
      temperature: 1.5,
      max_completion_tokens: 50,
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(botId);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: `Echo: Refunds? ${m}` });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(await balance(projectId)).toBe(4);

    const [sent] = await model.find(m);
    expect(sent!.system).toBe('You are the store assistant.\n\nAnswer in Portuguese.');
    expect(sent!.body.messages.map((x) => [x.role, x.content])).toEqual([
      ['system', 'You are the store assistant.\n\nAnswer in Portuguese.'],
      ['user', 'Hi'],
      ['assistant', 'Hello! How can I help?'],
      ['user', `Refunds? ${m}`],
    ]);
    expect(sent!.body.temperature).toBe(1.5);
    expect(sent!.body.max_tokens).toBe(50);
    expect(sent!.body.model).toBe('test-model'); // the model group's OPENAI_MODEL
  });

  it('streams: chunks arrive while the model is still producing, role first, usage last, then the charge settles', async () => {
    const { projectId, botId, openai } = await projectWithBot();
    const m = marker();
    const started = Date.now();
    const stream = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: `one two three four five #drip=150 ${m}` }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const arrivals: number[] = [];
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      arrivals.push(Date.now() - started);
      chunks.push(chunk);
    }
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe(`Echo: one two three four five #drip=150 ${m}`);
    // The model double takes 150 ms per word (8 words: 1.2 s): the first chunk must not wait for the last word.
    const contentArrivals = arrivals.filter((_, i) => chunks[i]!.choices[0]?.delta?.content);
    expect(contentArrivals.length).toBeGreaterThanOrEqual(8);
    expect(contentArrivals.at(-1)! - contentArrivals[0]!).toBeGreaterThan(700);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === botId)).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 11 });
    expect(await balance(projectId)).toBe(4);
    // The upstream call itself was streamed.
    expect((await model.find(m))[0]!.body.stream).toBe(true);
  });

  it('JSON mode: the model is asked for a JSON object and the content parses', async () => {
    const { botId, openai } = await projectWithBot();
    const m = marker();
    const completion = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: `#json ${m}` }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ answer: 42, ok: true });
    expect((await model.find(m))[0]!.body.response_format).toEqual({ type: 'json_object' });

    const streamed = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: `#json ${marker()}` }],
      response_format: { type: 'json_object' },
      stream: true,
    });
    let text = '';
    for await (const chunk of streamed) text += chunk.choices[0]?.delta?.content ?? '';
    expect(JSON.parse(text)).toEqual({ answer: 42, ok: true });
  });

  it('a client that disconnects mid-stream after receiving text: the upstream call is aborted, the credit is spent', {
    retry: 2,
  }, async () => {
    const { projectId, botId, openai } = await projectWithBot();
    const m = marker();
    const stream = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: `#stall ${m}` }],
      stream: true,
    });
    for await (const chunk of stream) {
      expect(chunk.choices[0]!.delta.content).toBe('Echo: ');
      break; // leaving the loop aborts the HTTP request
    }
    await eventually(
      async () => (await model.abandoned(m)).length > 0 && (await balance(projectId)) === 4,
      10_000,
      'the upstream call aborted',
    );
    // It received text: the credit is final, not refunded to a reader who hangs up.
    expect(await balance(projectId)).toBe(4);
  });

  it('a failure after the stream began ends it with an error event and no [DONE]; the credit is refunded', async () => {
    const { projectId, botId, token } = await projectWithBot();
    const res = await fetch(`${svc.baseUrl}/api/v1/ai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: botId,
        stream: true,
        messages: [{ role: 'user', content: `#breakoff ${marker()}` }],
      }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(JSON.parse(events[0]!.slice('data: '.length)).choices[0].delta.content).toBe('Echo: ');
    const last = JSON.parse(events.at(-1)!.slice('data: '.length));
    expect(last.error).toMatchObject({ type: 'api_error', code: 'generation_failed' });
    expect(events.some((e) => e.includes('[DONE]'))).toBe(false);
    expect(await balance(projectId)).toBe(5);

    // The openai client raises it as an APIError after the pieces it already yielded.
    const stream = await client(token).chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: `#breakoff ${marker()}` }],
      stream: true,
    });
    const pieces: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? '');
    })().catch((e: unknown) => e);
    expect(pieces).toEqual(['Echo: ']);
    expect(failure).toBeInstanceOf(APIError);
    expect(await balance(projectId)).toBe(5);
  });

  it('an upstream failure before the first token is a 502 in OpenAI’s body, refunded, in both modes', async () => {
    const { projectId, botId, openai } = await projectWithBot();
    for (const stream of [false, true]) {
      const failure = await openai.chat.completions
        .create({ model: botId, messages: [{ role: 'user', content: `#fail ${marker()}` }], stream })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(failure).toBeInstanceOf(APIError);
      expect((failure as APIError).status).toBe(502);
      expect((failure as APIError).error).toMatchObject({ type: 'api_error', code: 'generation_failed' });
      expect(JSON.stringify((failure as APIError).error)).not.toContain('secret.py');
    }
    expect(await balance(projectId)).toBe(5);
  });

  it('the bot’s knowledge: fontes on the response and on the last chunk, the same list as the native route', async () => {
    const { projectId, botId, openai, token } = await projectWithBot(5, 'Você é o assistente da loja.');
    const files: Record<string, string> = {
      'horarios.md': '# Horários\n\nA loja abre às 9h e fecha às 18h de segunda a sábado.',
      'trocas.txt': 'Trocas em até 30 dias com a nota fiscal; a loja troca de segunda a sábado.',
    };
    for (const [fileName, body] of Object.entries(files))
      expect((await svc.putKnowledge(projectId, botId, fileName, body)).status).toBe(202);
    await svc.knowledgeReady(projectId, botId, 2);
    const question = 'A loja abre de segunda a sábado?';
    const native = (await svc.botsApi(token, 'completion', { botId, prompt: question })).body as {
      fontes?: { procedencia: string; score: number }[];
    };
    expect(native.fontes?.map((f) => f.procedencia).sort()).toEqual(['horarios.md', 'trocas.txt']);
    const scores = native.fontes!.map((f) => f.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);

    const completion = (await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: question }],
    })) as OpenAI.Chat.Completions.ChatCompletion & { fontes?: unknown };
    expect(completion.fontes).toEqual(native.fontes);

    const stream = await openai.chat.completions.create({
      model: botId,
      messages: [{ role: 'user', content: question }],
      stream: true,
    });
    let fontes: unknown;
    for await (const chunk of stream)
      if ((chunk as { fontes?: unknown }).fontes) fontes = (chunk as { fontes?: unknown }).fontes;
    expect(fontes).toEqual(native.fontes);
  });
});

describe('GET /api/v1/ai/models (openai client)', () => {
  it("lists the project's bots, and only them", async () => {
    const { projectId, botId, openai } = await projectWithBot();
    const second = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Second', instructions: 'x' });
    await projectWithBot(); // another project's bot must not appear
    const models = [];
    for await (const m of openai.models.list()) models.push(m);
    expect(models.map((m) => m.id).sort()).toEqual([botId, second.body.botId].sort());
    for (const m of models) {
      expect(m).toMatchObject({ object: 'model', owned_by: projectId });
      expect(m.created).toBeGreaterThan(1_700_000_000);
    }
  });
});

describe('errors as the openai client raises them', () => {
  const failure = (work: Promise<unknown>) =>
    work.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as APIError,
    );

  it('401 AuthenticationError for a bad token, in OpenAI’s body with x-request-id', async () => {
    const error = await failure(
      client('not-a-token').chat.completions.create({ model: 'bot_x', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.error).toMatchObject({ type: 'authentication_error', param: null });
    expect(error.requestID ?? error.headers?.get('x-request-id')).toBeTruthy();
    expect(await failure(client('not-a-token').models.list())).toBeInstanceOf(AuthenticationError);
  });

  it('404 NotFoundError for an unknown bot and 403 PermissionDeniedError for another project’s bot; nothing charged', async () => {
    const { projectId, openai } = await projectWithBot();
    const other = await projectWithBot();
    const notFound = await failure(
      openai.chat.completions.create({ model: 'bot_doesnotexist', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound.error).toMatchObject({ type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
    const forbidden = await failure(
      openai.chat.completions.create({ model: other.botId, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    );
    expect(forbidden).toBeInstanceOf(PermissionDeniedError);
    expect(forbidden.status).toBe(403);
    expect(await balance(projectId)).toBe(5);
  });

  it('429 RateLimitError with Retry-After past the limit (models.list counts)', async () => {
    const { openai } = await projectWithBot();
    let error: APIError | undefined;
    // The bucket refills one request a second: a few more than the limit, in case some seconds pass meanwhile.
    for (let i = 0; i <= RATE_LIMIT + 20 && !error; i++)
      error = await openai.models.list().then(
        () => undefined,
        (e: APIError) => e,
      );
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error!.error).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(Number(error!.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('402 when the credits are spent, nothing charged', async () => {
    const { botId, openai } = await projectWithBot(0);
    const error = await failure(
      openai.chat.completions.create({ model: botId, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(error.status).toBe(402);
    expect(error.error).toMatchObject({ code: 'insufficient_quota' });
  });

  it('400 BadRequestError for every request rule, nothing charged and nothing sent upstream', async () => {
    const { projectId, botId, token } = await projectWithBot(5);
    const openai = client(token);
    const m = marker();
    const cases: [Record<string, unknown>, string, string | null][] = [
      [{ messages: [{ role: 'system', content: 'only instructions' }] }, 'missing_required_parameter', 'messages'],
      [{ n: 2 }, 'unsupported_parameter', 'n'],
      [{ logprobs: true }, 'unsupported_parameter', 'logprobs'],
      [
        {
          messages: [
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
          ],
        },
        'unsupported_parameter',
        'messages[0].content[0]',
      ],
      [{ temperature: 2.5 }, 'invalid_value', 'temperature'],
      [{ max_tokens: 0 }, 'invalid_value', 'max_tokens'],
    ];
    // Five requests per token fit the rate limit; the sixth case goes on a second token of the same project.
    for (const [i, [fields, code, param]] of cases.entries()) {
      const caller =
        i < RATE_LIMIT - 1 ? openai : client((await svc.admin('POST', `/projects/${projectId}/api-token`)).body.token);
      const error = await failure(
        caller.chat.completions.create({
          model: botId,
          messages: [{ role: 'user', content: `hi ${m}` }],
          ...fields,
        } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming),
      );
      expect(error, JSON.stringify(fields)).toBeInstanceOf(BadRequestError);
      expect(error.error, JSON.stringify(fields)).toMatchObject({ type: 'invalid_request_error', code, param });
    }
    expect(await model.find(m)).toEqual([]);
    expect(await balance(projectId)).toBe(5);
  });

  it('400 context_length_exceeded when the model says the prompt is over its context; the credit comes back', async () => {
    const { projectId, botId, openai } = await projectWithBot();
    const error = await failure(
      openai.chat.completions.create({ model: botId, messages: [{ role: 'user', content: `#toolong ${marker()}` }] }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded' });
    expect(await balance(projectId)).toBe(5);
  });

  it('413 for a JSON body over 10 MB, in OpenAI’s body', async () => {
    const { projectId, botId, token } = await projectWithBot();
    const res = await fetch(`${svc.baseUrl}/api/v1/ai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: botId, messages: [{ role: 'user', content: 'x'.repeat(10 * 1024 * 1024 + 1) }] }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await balance(projectId)).toBe(5);
  });
});
