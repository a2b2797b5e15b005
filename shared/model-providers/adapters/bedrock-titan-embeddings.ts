import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { type EmbeddingsProvider, unitVector } from '../../models/index.ts';

/** The vector sizes Titan Text Embeddings V2 makes. */
const TITAN_V2_DIMENSIONS: readonly number[] = [256, 512, 1024];

/**
 * Amazon Titan Text Embeddings V2 on Bedrock (`amazon.titan-embed-text-v2:0`): one text per InvokeModel call
 * (the model takes no batches), a few calls in flight at once, vectors of 256, 512 or 1024 dimensions normalised
 * by the model. Titan V2 reads at most 8,192 tokens (about 50,000 characters), far above an excerpt.
 *
 * The Bedrock SDK is loaded on the first `embed` (the client from `client()`, the command with `import()`): the
 * functions that hold this model (search, completion, ingest, embeddings) do not load it at cold start.
 */
export class BedrockTitanEmbeddings implements EmbeddingsProvider {
  constructor(
    private readonly client: () => Promise<BedrockRuntimeClient>,
    readonly model: string,
    private readonly dimensions: number,
    private readonly concurrency = 8,
  ) {}

  get defaultDimensions(): number {
    return this.dimensions;
  }

  supportsDimensions(dimensions: number): boolean {
    return TITAN_V2_DIMENSIONS.includes(dimensions);
  }

  async embed(
    texts: string[],
    _purpose: 'document' | 'query',
    signal?: AbortSignal,
    options: { dimensions?: number } = {},
  ): Promise<Float32Array[]> {
    const [client, { InvokeModelCommand }] = await Promise.all([
      this.client(),
      import('@aws-sdk/client-bedrock-runtime'),
    ]);
    const dimensions = options.dimensions ?? this.dimensions;
    const out: Float32Array[] = new Array(texts.length);
    let next = 0;
    const worker = async () => {
      while (next < texts.length) {
        const i = next++;
        const response = await client.send(
          new InvokeModelCommand({
            modelId: this.model,
            contentType: 'application/json',
            accept: 'application/json',
            body: JSON.stringify({
              inputText: texts[i]!.slice(0, 40_000),
              dimensions,
              normalize: true,
            }),
          }),
          { abortSignal: signal },
        );
        const parsed = JSON.parse(new TextDecoder().decode(response.body)) as { embedding?: number[] };
        if (!Array.isArray(parsed.embedding)) throw new Error('Titan embeddings answer without an embedding');
        out[i] = unitVector(parsed.embedding);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, texts.length) }, worker));
    return out;
  }
}
