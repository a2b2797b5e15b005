import type { BucketKey } from './buckets.ts';
import type { QueueKey } from './queues.ts';
import type { GsiName } from './table.ts';

/**
 * What a function touches, declared next to its route or worker definition. infra/ derives each function's IAM
 * policy and its environment (TABLE_NAME, QUEUE_URL_*, BUCKET_*, *_SECRET_ARN) from this and nothing else, so a
 * function gets exactly what it declares; the local runner ignores it (everything runs under one identity).
 *
 * Keep it truthful: `test/infra` checks the declaration against what the function's bundle imports (a function that
 * bundles the SQS client but declares no queue, or declares Bedrock but never imports its client, fails).
 */
export interface FunctionAccess {
  /** The main table: `read` = GetItem/Query/BatchGetItem, `write` = PutItem/UpdateItem/DeleteItem/BatchWriteItem. */
  table?: { read?: boolean; write?: boolean /** GSIs it queries. */; indexes?: GsiName[] };
  /** Queues it sends to (a queue worker's own queue is granted from its worker definition). */
  sendTo?: QueueKey[];
  /**
   * Objects per bucket: key prefixes per action (`['']` = the whole bucket). A presigned URL is signed with the
   * function's own credentials, so presigning a PUT under `uploads/` needs `write: ['uploads/']`.
   * `list` = ListBucket on the bucket (also what HeadBucket needs).
   */
  buckets?: Partial<Record<BucketKey, BucketAccess>>;
  /** Bedrock on the deployment's allowed models: `invoke` = InvokeModel(+stream)/Converse(+stream); `countTokens` = CountTokens (health probe). */
  bedrock?: { invoke?: boolean; countTokens?: boolean };
  /**
   * SES v2 `SendEmail` (email channels on SES): on the account's identities and configuration sets; the function gets
   * the deployment's configuration set (`SES_CONFIGURATION_SET`), whose events come back on the `inbound` queue.
   */
  ses?: { send?: boolean };
  /** Textract synchronous text detection (DetectDocumentText/AnalyzeDocument: no resource-level scoping exists). */
  textract?: boolean;
  /** Secrets read once per cold start. */
  secrets?: SecretKey[];
  /**
   * Assumes the roles customers grant for webhook destinations in their AWS accounts (sts:AssumeRole, only with an
   * external id of ours: `sbx_…`; the customer's trust policy names our account and their project's external id).
   */
  assumeCustomerRoles?: boolean;
}

export interface BucketAccess {
  read?: string[];
  write?: string[];
  delete?: string[];
  list?: boolean;
}

/**
 * Secrets kept in Secrets Manager on AWS. The function receives the secret's ARN in `envVar` and reads it once per
 * cold start; locally the plain value comes from `localEnvVar` instead.
 */
export const secrets = {
  /** The management API key (`Authorization: Bearer <ADMIN_KEY>`), generated at deploy. */
  adminKey: { envVar: 'ADMIN_KEY_SECRET_ARN', localEnvVar: 'ADMIN_KEY', description: 'Switchboard management API key' },
  /** AES-256-GCM key for secrets stored encrypted (webhook signing secrets, channel provider credentials). */
  secretsKey: {
    envVar: 'SECRETS_KEY_SECRET_ARN',
    localEnvVar: 'SECRETS_KEY',
    description: 'Switchboard AES-256-GCM key for stored secrets',
  },
  /** API key of an OpenAI-compatible model server (only when MODEL_PROVIDER=openai); set by the operator. */
  modelApiKey: {
    envVar: 'OPENAI_API_KEY_SECRET_ARN',
    localEnvVar: 'OPENAI_API_KEY',
    description: 'Switchboard model provider API key',
  },
} as const;

export type SecretKey = keyof typeof secrets;
