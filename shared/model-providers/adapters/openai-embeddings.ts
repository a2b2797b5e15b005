import type { EmbeddingsProvider } from '../../models/index.ts';
import { unitVector } from '../../models/index.ts';

/** OpenAI's embedding models and their vector sizes. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};
/** A model of unknown size is sized as if it made vectors this long (no common embedding model makes longer ones). */
const LARGEST_DIMENSIONS = 4096;

/**
 * An OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Ollama, vLLM, llama.cpp, LiteLLM...): texts sent in
 * batches, vectors put back in input order by their `index` and normalised here (not every server normalises).
 * `dimensions` is sent only when configured: servers that cannot shorten vectors reject it.
 */
export class OpenAiCompatibleEmbeddings implements EmbeddingsProvider {
  constructor(
    private readonly options: {
      baseUrl: string;
      apiKey?: string;
      model: string;
      dimensions?: number;
      timeoutMs?: number;
      fetch?: typeof fetch;
    },
  ) {}

  get model(): string {
    return this.options.model;
  }

  /** The configured size, else the model's own where it is known, else the largest this service answers. */
  get defaultDimensions(): number {
    return this.options.dimensions ?? KNOWN_DIMENSIONS[this.options.model] ?? LARGEST_DIMENSIONS;
  }

  /** Sent to the server as asked; a server (or model) that cannot shorten vectors refuses it. */
  supportsDimensions(dimensions: number): boolean {
    return Number.isInteger(dimensions) && dimensions >= 1;
  }

  async embed(
    texts: string[],
    _purpose: 'document' | 'query',
    signal?: AbortSignal,
    options: { dimensions?: number } = {},
  ): Promise<Float32Array[]> {
    if (!texts.length) return [];
    const dimensions = options.dimensions ?? this.options.dimensions;
    const deadline = AbortSignal.timeout(this.options.timeoutMs ?? 60_000);
    const response = await (this.options.fetch ?? fetch)(`${this.options.baseUrl.replace(/\/+$/, '')}/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.options.model,
        input: texts,
        encoding_format: 'float',
        ...(dimensions ? { dimensions } : {}),
      }),
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    if (!response.ok) throw new Error(`embeddings server answered HTTP ${response.status}`);
    const body = (await response.json()) as { data?: { embedding?: number[]; index?: number }[] };
    const data = body.data ?? [];
    if (data.length !== texts.length)
      throw new Error(`embeddings server returned ${data.length} vectors for ${texts.length} texts`);
    const out: Float32Array[] = new Array(texts.length);
    data.forEach((item, position) => {
      if (!Array.isArray(item.embedding)) throw new Error('embeddings answer without an embedding');
      out[item.index ?? position] = unitVector(item.embedding);
    });
    return out;
  }
}
