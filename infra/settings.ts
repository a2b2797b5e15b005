/**
 * Deployment settings: CDK context under the `switchboard` key (cdk.json, or `-c switchboard='{"...":...}'`), with
 * defaults that deploy a working service. Everything here is what differs between deployments; what the service is
 * (routes, queues, table) comes from shared/contract/.
 */
export interface DeploymentSettings {
  /** `bedrock` (default) or `openai` (an OpenAI-compatible server; its API key goes in the `modelApiKey` secret). */
  modelProvider: 'bedrock' | 'openai';
  /**
   * Bedrock model ids the functions may invoke; the first is the default (`BEDROCK_MODEL_ID`). IAM allows these and
   * nothing else, so a bot's `model` must be one of them. Ids with a geography prefix (`us.`, `eu.`, `apac.`,
   * `global.`) are cross-region inference profiles.
   */
  bedrockModelIds: string[];
  openaiBaseUrl?: string;
  openaiModel?: string;
  /** Knowledge search embeddings (hybrid with BM25): `none` = lexical only (default), `bedrock` or `openai`. */
  embeddingsProvider: 'none' | 'bedrock' | 'openai';
  /** Default: amazon.titan-embed-text-v2:0 (bedrock), text-embedding-3-small (openai). On Bedrock, IAM allows this model too. */
  embeddingsModel?: string;
  embeddingsDimensions?: number;
  embeddingsBaseUrl?: string;
  /** Days CloudWatch keeps function and access logs. */
  logRetentionDays: number;
  /**
   * API Gateway throttle (requests per second, burst) of each route the capacity target puts no load on (the
   * management API, message status...); the others get the capacity plan's (infra/capacity-plan.ts), never less.
   */
  throttleRateLimit: number;
  throttleBurstLimit: number;
  /**
   * The account's Regional quotas: Lambda concurrency and API Gateway requests per second (AWS's defaults: 1,000 and
   * 10,000). The capacity plan fits reservations, workers' concurrency and method throttles within them; the target
   * (S1-S4) needs more (`npx tsx bench/capacity.ts` prints how much): raise the quotas, then these.
   */
  lambdaConcurrencyQuota: number;
  apiRequestQuota: number;
  /** Address that gets alarm notifications (an SNS email subscription to confirm); none = alarms only in the console. */
  alarmEmail?: string;
  /**
   * The API's public base URL (a custom domain), as Twilio and Meta call it and Twilio signs it; default: the
   * execute-api URL of the stage. Channel answers show inbound URLs under it.
   */
  publicBaseUrl?: string;
  /** Inbound mail: the domains (or addresses) the SES receipt rule takes; empty = every verified domain. */
  inboundMailRecipients?: string[];
  /**
   * OCR for scanned PDF pages in extract: `textract` (default: Amazon Textract, nothing shipped) or `tesseract`
   * (tesseract.js and its language data, ~70 MB, in the extract asset; no Textract calls, no Textract permission).
   */
  ocrEngine: 'textract' | 'tesseract';
  /**
   * Reserved concurrency of each long-running route (completion, chat, responses, embeddings, extract), instead of
   * the capacity plan's: each may hold at most this many instances, so a burst on one cannot take the account's
   * concurrency from the others. 0 = no reservation (accounts with the 10-instance quota cannot reserve any).
   */
  longRouteReservedConcurrency?: number;
  /**
   * Keep the conversation index of before (`gsi2`, the whole item projected) beside the keys-only one that replaces
   * it, for a deployment made before the change (docs/operations.md, "Replacing an index"): set it for the update
   * that adds the new index, and leave it out once that index is ACTIVE, which deletes the old one.
   */
  keepPreviousConversationIndex?: boolean;
  /** Extra settings for every function (BOT_RATE_LIMIT_PER_MINUTE, WEBHOOK_RETRY_SCHEDULE, ...): see shared/config. */
  environment: Record<string, string>;
}

export const defaultSettings: DeploymentSettings = {
  modelProvider: 'bedrock',
  bedrockModelIds: ['amazon.nova-lite-v1:0'],
  embeddingsProvider: 'none',
  logRetentionDays: 30,
  throttleRateLimit: 200,
  throttleBurstLimit: 400,
  ocrEngine: 'textract',
  lambdaConcurrencyQuota: 1_000,
  apiRequestQuota: 10_000,
  environment: {},
};

/** Settings from the CDK context value (an object, or a JSON string when given with `-c`). */
export function settingsFromContext(value: unknown): DeploymentSettings {
  const given = (typeof value === 'string' ? JSON.parse(value) : (value ?? {})) as Partial<DeploymentSettings>;
  const settings: DeploymentSettings = {
    ...defaultSettings,
    ...given,
    environment: { ...defaultSettings.environment, ...given.environment },
  };
  if (!['bedrock', 'openai'].includes(settings.modelProvider))
    throw new Error(`switchboard.modelProvider must be bedrock or openai, not ${settings.modelProvider}`);
  if (settings.modelProvider === 'bedrock' && settings.bedrockModelIds.length === 0)
    throw new Error('switchboard.bedrockModelIds must name at least one model');
  if (settings.modelProvider === 'openai' && !settings.openaiBaseUrl)
    throw new Error('switchboard.openaiBaseUrl is required with modelProvider openai');
  if (!['textract', 'tesseract'].includes(settings.ocrEngine))
    throw new Error(`switchboard.ocrEngine must be textract or tesseract, not ${settings.ocrEngine}`);
  const reserved = settings.longRouteReservedConcurrency;
  if (reserved !== undefined && (!Number.isInteger(reserved) || reserved < 0))
    throw new Error('switchboard.longRouteReservedConcurrency must be a whole number, 0 or more');
  for (const quota of ['lambdaConcurrencyQuota', 'apiRequestQuota'] as const)
    if (!Number.isInteger(settings[quota]) || settings[quota] < 1)
      throw new Error(`switchboard.${quota} must be a whole number, 1 or more`);
  if (!['none', 'bedrock', 'openai'].includes(settings.embeddingsProvider))
    throw new Error(`switchboard.embeddingsProvider must be none, bedrock or openai`);
  return settings;
}

/** The Bedrock models the functions may call: the chat models (provider bedrock) and the embeddings model (embeddings bedrock). */
export function bedrockModelIds(settings: DeploymentSettings): string[] {
  return [
    ...(settings.modelProvider === 'bedrock' ? settings.bedrockModelIds : []),
    ...(settings.embeddingsProvider === 'bedrock' ? [settings.embeddingsModel ?? 'amazon.titan-embed-text-v2:0'] : []),
  ];
}
