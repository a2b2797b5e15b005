import { flag, invalidConfiguration, nonEmpty, positiveInt } from './settings.ts';
import * as z from './validation/zod.ts';

/**
 * The kernel's settings from the environment, parsed once per cold start: the generic ones (runtime, region,
 * endpoints, the table, buckets, queues, secrets, untrusted parsing) and those of the areas that do not declare
 * their own yet (an area's own: `shared/<area>/settings.ts`, see ./settings.ts). A missing or malformed setting
 * fails the cold start with a clear message instead of failing the first request.
 */
const schema = z.object({
  /** `local` when the local runner hosts the functions; decides defaults that differ from AWS. */
  SWITCHBOARD_RUNTIME: z._default(z.enum(['aws', 'local']), 'aws'),
  AWS_REGION: z._default(nonEmpty(), 'us-east-1'),
  TABLE_NAME: nonEmpty(),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  SQS_ENDPOINT: z.optional(z.url()),
  S3_ENDPOINT: z.optional(z.url()),
  /** The local SES v2 stand-in (absent on AWS). */
  SES_ENDPOINT: z.optional(z.url()),
  /**
   * The deployment's SES configuration set: SES channels send in it unless they name their own, and its event
   * destination brings Delivery, Bounce, Complaint and Reject back to the inbound worker.
   */
  SES_CONFIGURATION_SET: z.optional(nonEmpty()),
  BUCKET_KNOWLEDGE: z.optional(nonEmpty()),
  BUCKET_TRANSFER: z.optional(nonEmpty()),
  QUEUE_URL_EVENTS: z.optional(nonEmpty()),
  QUEUE_URL_DELIVERIES: z.optional(nonEmpty()),
  QUEUE_URL_DELIVERIES_ORDERED: z.optional(nonEmpty()),
  QUEUE_URL_INGEST: z.optional(nonEmpty()),
  QUEUE_URL_INBOUND: z.optional(nonEmpty()),
  QUEUE_URL_INBOUND_ORDERED: z.optional(nonEmpty()),
  QUEUE_URL_OUTBOUND: z.optional(nonEmpty()),
  /**
   * The public base URL of the API (what Twilio and Meta call; Twilio signs it): inbound URLs on channel answers and
   * the URL Twilio signatures are checked against. Locally the gateway's own base URL.
   */
  PUBLIC_BASE_URL: z.optional(z.url()),
  /** Local SMTP listener for inbound mail (`npm start`): its port on 127.0.0.1; 0 picks a free one. */
  SMTP_INBOUND_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 2525),
  /** Plain admin key (local runs); on AWS the key comes from Secrets Manager through ADMIN_KEY_SECRET_ARN. */
  ADMIN_KEY: z.optional(z.string().check(z.minLength(16))),
  ADMIN_KEY_SECRET_ARN: z.optional(nonEmpty()),
  /** AES-256-GCM key (base64, 32 bytes) for secrets stored encrypted (webhook signing secrets); locally generated. */
  SECRETS_KEY: z.optional(z.string().check(z.regex(/^[A-Za-z0-9+/_-]{43}=?$/, '32 bytes, base64'))),
  SECRETS_KEY_SECRET_ARN: z.optional(nonEmpty()),
  WEBHOOK_ALLOW_PRIVATE: z.optional(flag(false)),
  /**
   * Where untrusted bytes (PDFs, mail, HTML and Markdown knowledge files) are parsed: `inline` (AWS: the Lambda's
   * memory and timeout are the sandbox) or `thread` (the local runner's default: a worker thread with a heap ceiling
   * and a deadline, off the threads that serve every other request).
   */
  UNTRUSTED_PARSING: z.optional(z.enum(['inline', 'thread'])),
  /** `thread` parsing: V8 heap of one parsing worker, MB. */
  SANDBOX_MEMORY_MB: z._default(z.coerce.number().check(z.int(), z.gte(64), z.lte(8192)), 512),
  /** `thread` parsing: parsing workers busy at once per function; more files wait their turn. */
  SANDBOX_THREADS: z._default(positiveInt(16), 2),
  TEXTRACT_ENDPOINT: z.optional(z.url()),
  /** Set by Lambda (and by the local runner's bundles mode): the function's memory, MB. Sizes its caches. */
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: z.optional(positiveInt(10_240)),
});

export type RawConfig = z.output<typeof schema>;

/** The kernel's settings' names (with the areas' own, local/settings.ts: what the local runner checks and passes on). */
export const settingNames: readonly string[] = Object.keys(schema.shape);

export interface Config extends RawConfig {
  webhookAllowPrivate: boolean;
  untrustedParsing: 'inline' | 'thread';
}

let cached: Config | undefined;

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const result = schema.safeParse(env);
  if (!result.success) throw invalidConfiguration(result.error.issues);
  const raw = result.data;
  const local = raw.SWITCHBOARD_RUNTIME === 'local';
  return {
    ...raw,
    webhookAllowPrivate: raw.WEBHOOK_ALLOW_PRIVATE ?? local,
    untrustedParsing: raw.UNTRUSTED_PARSING ?? (local ? 'thread' : 'inline'),
  };
}

/** The configuration of this process, parsed on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** The settings a deployment may leave out: each function that needs one asks for it with {@link requiredSetting}. */
type OptionalSetting = { [K in keyof RawConfig]-?: undefined extends RawConfig[K] ? K : never }[keyof RawConfig];

/** A setting this function cannot run without (other functions can): its value, or the cold start fails naming it. */
export function requiredSetting<K extends OptionalSetting>(cfg: Config, name: K): NonNullable<Config[K]> {
  const value = cfg[name];
  if (value === undefined) throw new Error(`Invalid configuration: ${name} is required`);
  return value as NonNullable<Config[K]>;
}
