/**
 * An embeddings model (Bedrock Titan Text Embeddings V2 or an OpenAI-compatible `/embeddings`). Optional: without
 * one, knowledge search is lexical only and runs fully offline.
 */
export interface EmbeddingsProvider {
  /** Model id recorded in the index; an index made by another model is searched lexically only. */
  readonly model: string;
  /**
   * One unit-length vector per text, in order. `options.dimensions` asks for vectors of that size (the
   * `/embeddings` route); without it, the provider's configured size. Throws on failure or when `signal` aborts.
   */
  embed(
    texts: string[],
    purpose: 'document' | 'query',
    signal?: AbortSignal,
    options?: { dimensions?: number },
  ): Promise<Float32Array[]>;
  /** Whether vectors of `dimensions` can be asked for (a caller's `dimensions` is refused otherwise). */
  supportsDimensions(dimensions: number): boolean;
  /**
   * The size of the vectors made when no `dimensions` is asked for: exact where the model's size is known, else the
   * largest a vector may have (an answer is sized by it before anything is charged; a longer vector is a failure).
   */
  readonly defaultDimensions: number;
}

/** Scales a vector to unit length (cosine similarity becomes a dot product). */
export function unitVector(values: ArrayLike<number>): Float32Array {
  const v = Float32Array.from(values);
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}
