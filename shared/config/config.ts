import { z } from 'zod';

const flag = (fallback: boolean) =>
  z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).optional().transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v)));

/**
 * Settings from the environment, parsed once per cold start. A missing or malformed setting fails the cold start
 * with a clear message instead of failing the first request.
 */
const schema = z.object({
  /** `local` when the local runner hosts the functions; decides defaults that differ from AWS. */
  SWITCHBOARD_RUNTIME: z.enum(['aws', 'local']).default('aws'),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TABLE_NAME: z.string().min(1),
  DYNAMODB_ENDPOINT: z.url().optional(),
  SQS_ENDPOINT: z.url().optional(),
  S3_ENDPOINT: z.url().optional(),
  BUCKET_KNOWLEDGE: z.string().min(1).optional(),
  BUCKET_TRANSFER: z.string().min(1).optional(),
  QUEUE_URL_EVENTS: z.string().min(1).optional(),
  QUEUE_URL_DELIVERIES: z.string().min(1).optional(),
  QUEUE_URL_INGEST: z.string().min(1).optional(),
  /** Plain admin key (local runs); on AWS the key comes from Secrets Manager through ADMIN_KEY_SECRET_ARN. */
  ADMIN_KEY: z.string().min(16).optional(),
  ADMIN_KEY_SECRET_ARN: z.string().min(1).optional(),
  /** AES-256-GCM key (base64, 32 bytes) for secrets stored encrypted (webhook signing secrets); locally generated. */
  SECRETS_KEY: z.string().regex(/^[A-Za-z0-9+/_-]{43}=?$/, '32 bytes, base64').optional(),
  SECRETS_KEY_SECRET_ARN: z.string().min(1).optional(),
  BOT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().max(100_000).default(60),
  CREDIT_SWEEP_AFTER_SECONDS: z.coerce.number().int().positive().default(900),
  MODEL_PROVIDER: z.enum(['bedrock', 'openai', 'offline']).optional(),
  BEDROCK_MODEL_ID: z.string().min(1).default('amazon.nova-lite-v1:0'),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  /** On AWS the OpenAI-compatible server's key comes from Secrets Manager (read once per cold start). */
  OPENAI_API_KEY_SECRET_ARN: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).optional(),
  /** Knowledge search embeddings (hybrid with BM25): `none` (default: lexical only, offline), `bedrock` or `openai`. */
  EMBEDDINGS_PROVIDER: z.enum(['none', 'bedrock', 'openai']).default('none'),
  /** Default: amazon.titan-embed-text-v2:0 (bedrock), text-embedding-3-small (openai). */
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  /** OpenAI-compatible server for embeddings; default OPENAI_BASE_URL. */
  EMBEDDINGS_BASE_URL: z.url().optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  /** Vector size: Titan V2 takes 256, 512 or 1024 (default 512); sent to OpenAI-compatible servers only when set. */
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().positive().max(4096).optional(),
  WEBHOOK_ALLOW_PRIVATE: flag(false).optional(),
  WEBHOOK_RETRY_SCHEDULE: z.string().regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, 'comma-separated seconds').optional(),
  /** Deadline of one webhook delivery attempt (contract: 15 s); shorter only in tests. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(15_000),
  /** Delivery attempts in flight at once to one destination, per deliver worker process (see endpoint-gate.ts). */
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: z.coerce.number().int().positive().max(1_000).default(10),
  /** An attempt unanswered this long marks its destination as slow: its further jobs are put back, not awaited. */
  WEBHOOK_SLOW_AFTER_MS: z.coerce.number().int().positive().max(60_000).default(1_000),
  /** Deadline of each call to a channel's provider (SMTP, Twilio, WhatsApp Cloud); contract: 10 s. */
  SEND_PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(10_000),
  /** OCR for extract pages without a text layer: default `tesseract` locally, `textract` on AWS; `none` turns it off. */
  OCR_ENGINE: z.enum(['tesseract', 'textract', 'none']).optional(),
  /** Pages OCRed at once: tesseract worker threads (default 1), or Textract calls in flight (default 8). */
  OCR_CONCURRENCY: z.coerce.number().int().positive().max(64).optional(),
  OCR_DPI: z.coerce.number().int().min(72).max(600).default(200),
  /** Time budget of one page's OCR; past it the page counts as unreadable. */
  OCR_PAGE_TIMEOUT_MS: z.coerce.number().int().positive().max(600_000).default(60_000),
  TEXTRACT_ENDPOINT: z.url().optional(),
  /** Folder with `<lang>.traineddata.gz` for tesseract; default: the @tesseract.js-data packages. */
  TESSERACT_LANG_PATH: z.string().min(1).optional(),
});

export type RawConfig = z.output<typeof schema>;

export interface Config extends RawConfig {
  modelProvider: 'bedrock' | 'openai' | 'offline';
  webhookAllowPrivate: boolean;
}

let cached: Config | undefined;

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const raw = result.data;
  const local = raw.SWITCHBOARD_RUNTIME === 'local';
  return {
    ...raw,
    modelProvider: raw.MODEL_PROVIDER ?? (local ? 'offline' : 'bedrock'),
    webhookAllowPrivate: raw.WEBHOOK_ALLOW_PRIVATE ?? local,
  };
}

/** The configuration of this process, parsed on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** For tests and the local runner, which set the environment before functions load. */
export function resetConfigForTests(): void {
  cached = undefined;
}
