import type { EmbeddingsProvider } from '../../models/index.ts';
import { foldAccents, words } from '../text/analyzer.ts';

/** Default vector size of the hashed embedding. */
export const HASHED_EMBEDDING_DIMENSIONS = 256;
/** Largest vector it makes. */
const MAX_DIMENSIONS = 4096;

/**
 * A deterministic embedding that needs no model (`EMBEDDINGS_PROVIDER=none`, the local default), so `/embeddings`
 * answers on a laptop and in tests: the text's words (lower case, accents folded) and their character trigrams are
 * hashed (FNV-1a, 32 bits) into `dimensions` buckets, each with a sign from the hash (feature hashing), words
 * weighing 1 and trigrams 0.5, and the vector is scaled to unit length. Texts that share words or word pieces point
 * the same way (cosine similarity is meaningful), the same text always gives the same vector; it knows nothing of
 * meaning beyond spelling (no synonyms, no languages).
 */
export class HashedEmbeddings implements EmbeddingsProvider {
  readonly model = 'hashed-ngrams-v1';
  readonly defaultDimensions = HASHED_EMBEDDING_DIMENSIONS;

  supportsDimensions(dimensions: number): boolean {
    return Number.isInteger(dimensions) && dimensions >= 1 && dimensions <= MAX_DIMENSIONS;
  }

  async embed(
    texts: string[],
    _purpose: 'document' | 'query',
    signal?: AbortSignal,
    options: { dimensions?: number } = {},
  ): Promise<Float32Array[]> {
    const dimensions = options.dimensions ?? HASHED_EMBEDDING_DIMENSIONS;
    return texts.map((text) => {
      if (signal?.aborted) throw signal.reason;
      return hashedVector(text, dimensions);
    });
  }
}

/** The feature-hashed vector of one text (see {@link HashedEmbeddings}). */
export function hashedVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    vector[hash % dimensions]! += hash & 0x80000000 ? -weight : weight;
  };
  for (const word of words(foldAccents(text.toLowerCase()))) {
    add(`w:${word}`, 1);
    const padded = `<${word}>`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5);
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimensions; i++) vector[i] = vector[i]! / norm;
  return vector;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
