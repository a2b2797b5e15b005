import { withMeta } from '../../../kernel/validation/meta.ts';
import * as z from '../../../kernel/validation/zod.ts';
import { RESPONSE_LIMIT_BYTES } from '../../../http/types.ts';
import { EMBEDDING_INPUTS_PER_CREDIT, type EmbedTextsOutput } from '../../../knowledge/index.ts';
import { invalid, missing, onlyKnownFields, present, unsupported } from './request-errors.ts';

/**
 * `POST /api/v1/ai/embeddings`: OpenAI's Embeddings request and answer (docs/openai-compatible-api.md). `input` is a
 * string or up to 2,048 strings (token-id arrays are refused: this service has no tokenizer to decode them);
 * `encoding_format` `float` (default) or `base64` (little-endian float32, as OpenAI's clients decode it); `dimensions`
 * when the deployment's model can make vectors of that size.
 */

/** One input: about 8,000 tokens, OpenAI's limit per input. */
export const EMBEDDING_INPUT_MAX_CHARS = 32_768;
/** All inputs of one request: about 300,000 tokens, OpenAI's limit per request. */
export const EMBEDDING_REQUEST_MAX_CHARS = 1_200_000;

export const embeddingsRequest = withMeta(
  z.object({
    model: withMeta(z.string().check(z.minLength(1), z.maxLength(200)), {
      description: 'A botId of the project (its embeddings model: the deployment’s) or `default`.',
    }),
    input: withMeta(z.union([z.string(), z.array(z.string())]), {
      description: `A string or up to ${EMBEDDING_INPUTS_PER_CREDIT} strings (token arrays: 400).`,
    }),
    encoding_format: z.optional(z.nullable(z.enum(['float', 'base64']))),
    dimensions: z.optional(z.nullable(z.number())),
  }),
  { id: 'EmbeddingsRequest' },
);

export interface EmbeddingsRequest {
  model: string;
  texts: string[];
  base64: boolean;
  dimensions?: number;
}

/** Validates an Embeddings body; the first problem is reported, as OpenAI does. */
export function parseEmbeddingsRequest(body: Record<string, unknown>): EmbeddingsRequest {
  onlyKnownFields(body, ['model', 'input', 'encoding_format', 'dimensions', 'user'], '');
  if (present(body.user)) throw unsupported('user', '`user` on embeddings');
  if (typeof body.model !== 'string' || !body.model) throw missing('model');
  if (body.model.length > 200) throw invalid('model', "Invalid 'model'.");
  if (!present(body.input)) throw missing('input');
  const input = body.input;
  const tokens = (v: unknown) => typeof v === 'number' || (Array.isArray(v) && v.every((x) => typeof x === 'number'));
  if (Array.isArray(input) && input.length > 0 && input.every(tokens))
    throw unsupported('input', 'Token-id input (send the text itself)');
  // The documented shape (the same schema /openapi.json shows), then the limits.
  const shape = embeddingsRequest.safeParse(body);
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    const param = issue.path.map(String).join('.') || null;
    throw invalid(param, `Invalid value for '${param}': ${issue.message}.`);
  }
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string'))
    throw invalid('input', "Invalid 'input': a string or a non-empty array of strings.");
  if (texts.length > EMBEDDING_INPUTS_PER_CREDIT)
    throw invalid('input', `'input' holds at most ${EMBEDDING_INPUTS_PER_CREDIT} strings per request.`);
  let total = 0;
  for (const [i, text] of (texts as string[]).entries()) {
    if (text.length === 0) throw invalid(`input[${i}]`, `Invalid 'input[${i}]': empty strings cannot be embedded.`);
    if (text.length > EMBEDDING_INPUT_MAX_CHARS)
      throw invalid(`input[${i}]`, `'input[${i}]' is over ${EMBEDDING_INPUT_MAX_CHARS} characters.`);
    total += text.length;
  }
  if (total > EMBEDDING_REQUEST_MAX_CHARS)
    throw invalid(
      'input',
      `The inputs hold over ${EMBEDDING_REQUEST_MAX_CHARS} characters in all; send fewer per request.`,
    );
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    throw invalid('encoding_format', "Invalid 'encoding_format': 'float' or 'base64'.");
  const dimensions = body.dimensions;
  if (present(dimensions) && !(typeof dimensions === 'number' && Number.isInteger(dimensions) && dimensions >= 1))
    throw invalid('dimensions', "Invalid 'dimensions': a whole number of at least 1.");
  return {
    model: body.model,
    texts: texts as string[],
    base64: format === 'base64',
    ...(typeof dimensions === 'number' ? { dimensions } : {}),
  };
}

/**
 * The most bytes an answer of `inputs` vectors of `dimensions` can take, counted on the worst case so that an answer
 * checked here always fits: a float32 written as a JSON number takes at most 25 characters and its comma
 * (`-0.0000012345678901234567`), base64 takes 4 characters per 3 bytes; each item adds its `{"object":"embedding",
 * "index":…,"embedding":…}` with its quotes escaped once more inside the proxy result, and the whole adds its envelope
 * and headers.
 */
export function embeddingsAnswerBytes(inputs: number, dimensions: number, base64: boolean): number {
  const vector = base64 ? 4 * Math.ceil((4 * dimensions) / 3) + 4 : FLOAT_CHARS * dimensions;
  return ENVELOPE_BYTES + inputs * (ITEM_BYTES + vector);
}

const FLOAT_CHARS = 26;
const ITEM_BYTES = 96;
const ENVELOPE_BYTES = 16 * 1024;

/**
 * The largest batch whose answer fits the response limit, for vectors of `dimensions` in the encoding (at most 2,048).
 */
export function largestEmbeddingsBatch(dimensions: number, base64: boolean): number {
  const per = embeddingsAnswerBytes(1, dimensions, base64) - ENVELOPE_BYTES;
  return Math.max(0, Math.min(EMBEDDING_INPUTS_PER_CREDIT, Math.floor((RESPONSE_LIMIT_BYTES - ENVELOPE_BYTES) / per)));
}

/**
 * Refuses, before anything is charged, a request whose answer would pass the response limit: 400 naming `input`, with
 * the largest batch that fits.
 */
export function checkEmbeddingsAnswerFits(request: EmbeddingsRequest, dimensions: number): void {
  if (embeddingsAnswerBytes(request.texts.length, dimensions, request.base64) <= RESPONSE_LIMIT_BYTES) return;
  const encoding = request.base64 ? 'base64' : 'float';
  const largest = largestEmbeddingsBatch(dimensions, request.base64);
  const hint = request.base64 ? '' : ' (base64 answers are about 5 times smaller: encoding_format "base64")';
  throw invalid(
    'input',
    `${request.texts.length} vectors of ${dimensions} dimensions in ${encoding} would be larger than the ` +
      `${RESPONSE_LIMIT_BYTES / 2 ** 20} MB an answer may hold: send at most ${largest} inputs per request${hint}. ` +
      'Nothing was charged.',
  );
}

/** The answer: vectors in input order, as numbers or as base64 of little-endian float32. */
export function embeddingsResponse(request: EmbeddingsRequest, output: EmbedTextsOutput): Record<string, unknown> {
  return {
    object: 'list',
    data: output.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: request.base64 ? base64Of(vector) : Array.from(vector),
    })),
    model: request.model,
    usage: { prompt_tokens: output.promptTokens, total_tokens: output.promptTokens },
  };
}

function base64Of(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}
