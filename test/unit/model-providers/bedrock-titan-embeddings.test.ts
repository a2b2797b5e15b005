import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '#shared/kernel/config.ts';
import { embeddingsFromSettings, modelSettings } from '#shared/model-providers/index.ts';
import { mockAwsClient } from '#test/support/aws-client-mock.ts';

const bedrock = mockAwsClient(BedrockRuntimeClient);
const cfg = parseConfig({ TABLE_NAME: 't' });
const titan = (settings: Record<string, string> = {}) =>
  embeddingsFromSettings(cfg, modelSettings.parse({ EMBEDDINGS_PROVIDER: 'bedrock', ...settings }))!;
const answer = (embedding: number[]) => ({ body: new TextEncoder().encode(JSON.stringify({ embedding })) }) as never;

describe('Titan Text Embeddings V2, as the deployment builds it (EMBEDDINGS_PROVIDER=bedrock)', () => {
  it('says its model, its default size and the sizes it makes without a call', () => {
    const model = titan({ EMBEDDINGS_DIMENSIONS: '1024' });
    expect(model.model).toBe('amazon.titan-embed-text-v2:0');
    expect(model.defaultDimensions).toBe(1024);
    expect([256, 512, 1024, 1536].map((d) => model.supportsDimensions(d))).toEqual([true, true, true, false]);
  });

  it('asks one text per call, with the size asked for, and answers unit vectors in input order', async () => {
    bedrock.on(InvokeModelCommand).callsFake(async (input: { body: string }) => {
      const { inputText } = JSON.parse(input.body) as { inputText: string };
      return answer(inputText === 'a' ? [3, 4] : [0, 2]);
    });
    const [a, b] = await titan().embed(['a', 'b'], 'query', undefined, { dimensions: 256 });
    expect(Array.from(a!)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(Array.from(b!)).toEqual([0, 1]);
    const sent = bedrock.commandCalls(InvokeModelCommand).map((call) => call.args[0].input);
    expect(sent.map((input) => input.modelId)).toEqual([
      'amazon.titan-embed-text-v2:0',
      'amazon.titan-embed-text-v2:0',
    ]);
    expect(sent.map((input) => JSON.parse(input.body as string))).toEqual(
      expect.arrayContaining([
        { inputText: 'a', dimensions: 256, normalize: true },
        { inputText: 'b', dimensions: 256, normalize: true },
      ]),
    );
  });

  it('fails the call on an answer without a vector', async () => {
    bedrock.on(InvokeModelCommand).resolves({ body: new TextEncoder().encode('{}') } as never);
    await expect(titan().embed(['a'], 'document')).rejects.toThrow(/without an embedding/);
  });
});
