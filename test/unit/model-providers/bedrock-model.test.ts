import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  InternalServerException,
  ModelErrorException,
  ModelNotReadyException,
  ModelTimeoutException,
  ResourceNotFoundException,
  ServiceQuotaExceededException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { mockAwsClient } from '#test/support/aws-client-mock.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { supportsStructuredOutput } from '#shared/model-providers/adapters/bedrock-converse.ts';
import { BedrockModelProvider } from '#shared/model-providers/adapters/bedrock-model.ts';
import { ModelError, type ModelRequest } from '#shared/models/index.ts';

const bedrock = mockAwsClient(BedrockRuntimeClient);
let provider: BedrockModelProvider;

beforeEach(() => {
  bedrock.reset();
  provider = new BedrockModelProvider({
    client: new BedrockRuntimeClient({ region: 'us-east-1' }),
    defaultModelId: 'amazon.nova-lite-v1:0',
  });
});

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'You are a helpful bot.',
  prompt: 'What are the opening hours?',
  responseFormat: 'text',
  excerpts: [],
  signal: new AbortController().signal,
  ...overrides,
});

const converseReply = (text: string, extra: Record<string, unknown> = {}) => ({
  output: { message: { role: 'assistant' as const, content: [{ text }] } },
  stopReason: 'end_turn' as const,
  usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
  metrics: { latencyMs: 300 },
  ...extra,
});

const exception = <T>(Type: new (opts: any) => T, message = 'x') => new Type({ message, $metadata: {} });

describe('BedrockModelProvider: request mapping', () => {
  it('sends the system prompt, the prompt as the one user message, and the default model', async () => {
    bedrock.on(ConverseCommand).resolves(converseReply('Open 9 to 5.'));
    const reply = await provider.generate(request());
    expect(reply).toEqual({
      text: 'Open 9 to 5.',
      usage: { inputTokens: 120, outputTokens: 30 },
      model: 'bedrock:amazon.nova-lite-v1:0',
      stopReason: 'end_turn',
    });
    const [call] = bedrock.commandCalls(ConverseCommand);
    expect(call!.args[0].input).toEqual({
      modelId: 'amazon.nova-lite-v1:0',
      system: [{ text: 'You are a helpful bot.' }],
      messages: [{ role: 'user', content: [{ text: 'What are the opening hours?' }] }],
    });
  });

  it("uses the bot's model, temperature and output limit", async () => {
    bedrock.on(ConverseCommand).resolves(converseReply('ok'));
    await provider.generate(
      request({ model: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', temperature: 0.2, maxOutputTokens: 500 }),
    );
    const input = bedrock.commandCalls(ConverseCommand)[0]!.args[0].input;
    expect(input.modelId).toBe('us.anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(input.inferenceConfig).toEqual({ temperature: 0.2, maxTokens: 500 });
  });

  it('asks for JSON natively (outputConfig.textFormat) on models with structured output, by prompt only elsewhere', async () => {
    bedrock.on(ConverseCommand).resolves(converseReply('{"a":1}'));
    await provider.generate(request({ responseFormat: 'json', model: 'qwen.qwen3-32b-v1:0' }));
    await provider.generate(request({ responseFormat: 'json' }));
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    };
    await provider.generate(
      request({
        responseFormat: 'json',
        model: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
        jsonSchema: { name: 'answer', schema },
      }),
    );
    const [open, nova, closed] = bedrock.commandCalls(ConverseCommand).map((c) => c.args[0].input);
    expect(open!.outputConfig).toEqual({
      textFormat: { type: 'json_schema', structure: { jsonSchema: { name: 'answer', schema: '{"type":"object"}' } } },
    });
    expect(nova!.outputConfig).toBeUndefined();
    expect(JSON.parse(closed!.outputConfig!.textFormat!.structure!.jsonSchema!.schema!)).toEqual(schema);
  });

  it('asks again without the open schema when a model refuses it, and stops offering it to that model', async () => {
    bedrock
      .on(ConverseCommand)
      .rejectsOnce(exception(ValidationException, 'Invalid JSON schema: additionalProperties must be false'))
      .resolves(converseReply('{"a":1}'));
    const model = 'anthropic.claude-opus-4-5-20251101-v1:0';
    expect((await provider.generate(request({ responseFormat: 'json', model }))).text).toBe('{"a":1}');
    await provider.generate(request({ responseFormat: 'json', model }));
    const inputs = bedrock.commandCalls(ConverseCommand).map((c) => c.args[0].input);
    expect(inputs.map((i) => i.outputConfig !== undefined)).toEqual([true, false, false]);
  });

  it('knows which models take native structured output', () => {
    expect(supportsStructuredOutput('anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(true);
    expect(supportsStructuredOutput('eu.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe(true);
    expect(supportsStructuredOutput('arn:aws:bedrock:us-east-1::foundation-model/deepseek.v3-v1:0')).toBe(true);
    expect(supportsStructuredOutput('anthropic.claude-3-5-sonnet-20240620-v1:0')).toBe(false);
    expect(supportsStructuredOutput('amazon.nova-lite-v1:0')).toBe(false);
  });
});

describe('BedrockModelProvider: answers and errors', () => {
  it('joins text blocks and leaves usage out when Bedrock reports none', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: 'a' }, { text: 'b' }] } },
      stopReason: 'max_tokens',
    });
    expect(await provider.generate(request())).toEqual({
      text: 'ab',
      model: 'bedrock:amazon.nova-lite-v1:0',
      stopReason: 'max_tokens',
    });
  });

  it.each([
    ['content_filtered', 'rejected'],
    ['guardrail_intervened', 'rejected'],
    ['model_context_window_exceeded', 'too-long'],
    ['malformed_model_output', 'failed'],
  ])('stop reason %s is a %s failure', async (stopReason, kind) => {
    bedrock.on(ConverseCommand).resolves(converseReply('partial', { stopReason }));
    await expect(provider.generate(request())).rejects.toMatchObject({ name: 'ModelError', kind });
  });

  it('an empty answer is a failure', async () => {
    bedrock.on(ConverseCommand).resolves(converseReply('  '));
    await expect(provider.generate(request())).rejects.toMatchObject({ kind: 'failed' });
  });

  it.each([
    [exception(ThrottlingException), 'throttled', true],
    [exception(ServiceQuotaExceededException), 'throttled', true],
    [exception(ServiceUnavailableException), 'unavailable', true],
    [exception(InternalServerException), 'unavailable', true],
    [exception(ModelNotReadyException), 'unavailable', true],
    [exception(ModelTimeoutException), 'unavailable', true],
    [exception(AccessDeniedException), 'misconfigured', false],
    [exception(ResourceNotFoundException), 'misconfigured', false],
    [exception(ValidationException, 'Input is too long for requested model.'), 'too-long', false],
    [exception(ValidationException, 'The provided model identifier is invalid.'), 'misconfigured', false],
    [exception(ModelErrorException), 'failed', false],
    [new TypeError('socket hang up'), 'failed', false],
  ])('%s → %s (retryable: %s)', async (error, kind, retryable) => {
    bedrock.on(ConverseCommand).rejects(error);
    const failure = (await provider.generate(request()).catch((e: unknown) => e)) as ModelError;
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure.kind).toBe(kind);
    expect(failure.retryable).toBe(retryable);
    // The caller-facing message never carries the AWS error name or its message.
    expect(failure.message).not.toMatch(/Exception|Input is too long for requested model|identifier/);
    expect(failure.cause).toBe(error);
  });

  it('throttling suggests when to retry', async () => {
    bedrock.on(ConverseCommand).rejects(exception(ThrottlingException));
    await expect(provider.generate(request())).rejects.toMatchObject({ retryAfterSeconds: 5 });
  });

  it('a call aborted by the deadline is a timeout, whatever the SDK called it', async () => {
    const controller = new AbortController();
    bedrock.on(ConverseCommand).callsFake(async () => {
      controller.abort();
      throw Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    });
    await expect(provider.generate(request({ signal: controller.signal }))).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('does not call Bedrock at all once the deadline has passed', async () => {
    bedrock.on(ConverseCommand).resolves(converseReply('late'));
    await expect(provider.generate(request({ signal: AbortSignal.abort() }))).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
  });
});

describe('BedrockModelProvider: models without a system prompt', () => {
  it('moves the instructions into the user message when the model refuses system messages, and remembers it', async () => {
    bedrock
      .on(ConverseCommand)
      .rejectsOnce(
        exception(
          ValidationException,
          "This model doesn't support system messages. Try again without system messages.",
        ),
      )
      .resolves(converseReply('ok'));
    const model = 'mistral.mistral-7b-instruct-v0:2';
    expect((await provider.generate(request({ model }))).text).toBe('ok');
    await provider.generate(request({ model }));
    const inputs = bedrock.commandCalls(ConverseCommand).map((c) => c.args[0].input);
    expect(inputs[0]!.system).toEqual([{ text: 'You are a helpful bot.' }]);
    for (const input of inputs.slice(1)) {
      expect(input.system).toBeUndefined();
      expect(input.messages).toEqual([
        { role: 'user', content: [{ text: 'You are a helpful bot.\n\nWhat are the opening hours?' }] },
      ]);
    }
    expect(inputs).toHaveLength(3);
  });

  it('adapts at most twice, then reports the failure', async () => {
    bedrock
      .on(ConverseCommand)
      .rejects(exception(ValidationException, 'Invalid schema for structured output; system messages not supported'));
    await expect(
      provider.generate(request({ responseFormat: 'json', model: 'qwen.qwen3-32b-v1:0' })),
    ).rejects.toMatchObject({ name: 'ModelError' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(3);
  });
});
