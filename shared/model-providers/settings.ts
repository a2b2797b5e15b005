import { declareSettings, nonEmpty, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';
import { MODEL_PROVIDERS, type ModelProviderName } from '../models/index.ts';

/** The models this deployment calls: the one that answers a bot naming none, and the embeddings model. */
export const modelSettings = declareSettings(
  {
    /** The provider of a bot that names none: default `offline` locally, `bedrock` on AWS. */
    MODEL_PROVIDER: z.optional(z.enum(MODEL_PROVIDERS)),
    /** Bedrock's model (id, inference profile or ARN) when a bot names only `bedrock`, or nothing. */
    BEDROCK_MODEL_ID: z._default(nonEmpty(), 'amazon.nova-lite-v1:0'),
    /** The OpenAI-compatible server, with its version segment (`https://api.openai.com/v1`). */
    OPENAI_BASE_URL: z.optional(z.url()),
    /** Its key in plain text (local runs). */
    OPENAI_API_KEY: z.optional(z.string()),
    /** On AWS its key comes from Secrets Manager (read once per cold start). */
    OPENAI_API_KEY_SECRET_ARN: z.optional(nonEmpty()),
    /** Its model when a bot names only `openai`, or nothing. */
    OPENAI_MODEL: z.optional(nonEmpty()),
    /** Knowledge search embeddings (hybrid with BM25): `none` (default: lexical only, offline), `bedrock` or `openai`. */
    EMBEDDINGS_PROVIDER: z._default(z.enum(['none', 'bedrock', 'openai']), 'none'),
    /** Default: amazon.titan-embed-text-v2:0 (bedrock), text-embedding-3-small (openai). */
    EMBEDDINGS_MODEL: z.optional(nonEmpty()),
    /** OpenAI-compatible server for embeddings; default OPENAI_BASE_URL. */
    EMBEDDINGS_BASE_URL: z.optional(z.url()),
    /** Its key; default OPENAI_API_KEY. */
    EMBEDDINGS_API_KEY: z.optional(z.string()),
    /** Vector size: Titan V2 takes 256, 512 or 1024 (default 512); sent to OpenAI-compatible servers only when set. */
    EMBEDDINGS_DIMENSIONS: z.optional(positiveInt(4096)),
  },
  (raw, { local }) => ({
    ...raw,
    modelProvider: (raw.MODEL_PROVIDER ?? (local ? 'offline' : 'bedrock')) as ModelProviderName,
  }),
);

export type ModelSettings = ReturnType<typeof modelSettings.read>;
