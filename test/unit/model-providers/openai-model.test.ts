import { describe, expect, it } from 'vitest';
import { OpenAiModelProvider } from '#shared/model-providers/adapters/openai-model.ts';
import type { ModelRequest } from '#shared/models/index.ts';

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'Be brief.',
  prompt: 'Hi',
  responseFormat: 'text',
  excerpts: [],
  signal: new AbortController().signal,
  ...overrides,
});

/** A provider whose "server" is a function from the request to a Response. */
function provider(
  answer: (url: string, init: RequestInit) => Response | Promise<Response>,
  options: { defaultModel?: string } = { defaultModel: 'm1' },
) {
  const calls: { url: string; body: any; headers: Record<string, string> }[] = [];
  const fetchStub = (async (url: string, init: RequestInit) => {
    calls.push({ url, body: JSON.parse(String(init.body)), headers: init.headers as Record<string, string> });
    return answer(url, init);
  }) as unknown as typeof fetch;
  return {
    calls,
    provider: new OpenAiModelProvider({ baseUrl: 'http://models.test/v1/', apiKey: 'k', ...options, fetch: fetchStub }),
  };
}

const completion = (content: unknown, extra: Record<string, unknown> = {}) =>
  Response.json({
    model: 'm1-2026',
    choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 1 },
    ...extra,
  });

describe('OpenAiModelProvider', () => {
  it('posts a Chat Completions request and reads the answer and usage', async () => {
    const { calls, provider: p } = provider(() => completion('Hello!'));
    const reply = await p.generate(request({ temperature: 0.7, maxOutputTokens: 100 }));
    expect(reply).toEqual({
      text: 'Hello!',
      model: 'openai:m1-2026',
      stopReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 1 },
    });
    expect(calls[0]!.url).toBe('http://models.test/v1/chat/completions');
    expect(calls[0]!.headers.authorization).toBe('Bearer k');
    expect(calls[0]!.body).toEqual({
      model: 'm1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      stream: false,
      temperature: 0.7,
      max_tokens: 100,
    });
  });

  it('asks for json_object, or json_schema when a schema is given; the bot’s model wins over the default', async () => {
    const { calls, provider: p } = provider(() => completion('{}'));
    await p.generate(request({ responseFormat: 'json', model: 'llama3.1:8b' }));
    await p.generate(
      request({ responseFormat: 'json', jsonSchema: { name: 'answer', schema: { type: 'object' }, strict: true } }),
    );
    expect(calls[0]!.body.model).toBe('llama3.1:8b');
    expect(calls[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(calls[1]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
    });
  });

  it('reads array-of-parts content and leaves usage out when none is reported', async () => {
    const { provider: p } = provider(() =>
      completion(
        [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        { usage: undefined },
      ),
    );
    const reply = await p.generate(request());
    expect(reply.text).toBe('ab');
    expect(reply.usage).toBeUndefined();
  });

  it.each([
    [
      () => new Response('{"error":{"message":"slow down"}}', { status: 429, headers: { 'retry-after': '12' } }),
      'throttled',
      12,
    ],
    [() => new Response('busy', { status: 503 }), 'unavailable', 5],
    [() => new Response('oops', { status: 500 }), 'unavailable', undefined],
    [() => new Response('nope', { status: 401 }), 'misconfigured', undefined],
    [() => new Response('{"error":{"code":"model_not_found"}}', { status: 404 }), 'misconfigured', undefined],
    [() => new Response('{"error":{"code":"context_length_exceeded"}}', { status: 400 }), 'too-long', undefined],
    [() => new Response('{"error":{"message":"bad"}}', { status: 422 }), 'rejected', undefined],
    [() => new Response('<html>', { status: 200 }), 'failed', undefined],
    [() => Response.json({ choices: [] }), 'failed', undefined],
    [
      () =>
        completion(null, {
          choices: [{ message: { content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }],
        }),
      'rejected',
      undefined,
    ],
    [
      () => completion('partial', { choices: [{ message: { content: 'partial' }, finish_reason: 'content_filter' }] }),
      'rejected',
      undefined,
    ],
    [() => completion('   '), 'failed', undefined],
    [
      () => {
        throw new TypeError('fetch failed');
      },
      'unavailable',
      undefined,
    ],
  ])('maps failure %# to %s', async (answer, kind, retryAfterSeconds) => {
    const { provider: p } = provider(answer);
    const error = await p.generate(request()).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ModelError', kind });
    expect((error as { retryAfterSeconds?: number }).retryAfterSeconds).toBe(retryAfterSeconds);
  });

  it('refuses an answer larger than it accepts', async () => {
    const { provider: p } = provider(() => new Response('x'.repeat(9 * 1024 * 1024), { status: 200 }));
    await expect(p.generate(request())).rejects.toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/more than/),
    });
  });

  it('needs a model: from the request or OPENAI_MODEL', async () => {
    const { calls, provider: p } = provider(() => completion('x'), {});
    await expect(p.generate(request())).rejects.toMatchObject({ kind: 'misconfigured' });
    expect(calls).toHaveLength(0);
  });

  it('an abort of the request signal is a timeout', async () => {
    const controller = new AbortController();
    const { provider: p } = provider(() => {
      controller.abort();
      throw new DOMException('aborted', 'AbortError');
    });
    await expect(p.generate(request({ signal: controller.signal }))).rejects.toMatchObject({ kind: 'timeout' });
  });
});
