import { localBundleSettings, localDeployment, type LocalDeployment } from '#local/bundles/local-deployment.ts';
import type { DeploymentSettings } from '#infra/settings.ts';
import { startAwsFront, type AwsCall } from './aws-front.ts';
import {
  LOCAL_ACCOUNT,
  localSecretArn,
  templateEnvironment,
  templateResolver,
  type LocalNames,
} from './bundle-deployment.ts';
import type { BundleLaunch } from './load-bundle.ts';

/** Where the runner's threads find how to start each function's bundle (JSON of {@link BundleLaunch} by function). */
export const BUNDLES_ENV = 'LOCAL_BUNDLES';

export interface BundlesMode {
  deployment: LocalDeployment;
  names: LocalNames;
  /** Every AWS call the functions made (local/bundles/aws-front.ts). */
  awsCalls: AwsCall[];
  launches: Record<string, BundleLaunch>;
  stop(): Promise<void>;
}

/**
 * Settings a local deployment differs in from the template's defaults (what the `environment` deployment setting
 * would give every function): no model provider to call, webhook receivers and mail servers on this machine (any
 * port, as the runner allows in source mode).
 */
const LOCAL_DEFAULTS: Record<string, string> = {
  MODEL_PROVIDER: 'offline',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  SMTP_ALLOWED_PORTS: 'any',
};

/**
 * The deployment the local settings correspond to: an OpenAI-compatible model provider is a deploy-time choice (the
 * stack then creates the model key's secret and grants it). Its URL is a tunable the caller's settings give; the
 * placeholder keeps the synthesized stack, and its cache entry, the same across runs.
 */
export function deploymentSettings(settings: Record<string, string | undefined>): DeploymentSettings {
  if (settings.MODEL_PROVIDER !== 'openai') return localBundleSettings;
  return { ...localBundleSettings, modelProvider: 'openai', openaiBaseUrl: 'http://model.invalid/v1' };
}

/** Wiring the template owns: a caller's value would point a function past the stand-ins or the secrets. */
const NOT_OVERRIDABLE = new Set([
  'SWITCHBOARD_RUNTIME',
  'TABLE_NAME',
  'DYNAMODB_ENDPOINT',
  'SQS_ENDPOINT',
  'S3_ENDPOINT',
  'TEXTRACT_ENDPOINT',
  // The destinations' services go through the front too, where their calls are recorded.
  'STS_ENDPOINT',
  'SNS_ENDPOINT',
  'EVENTBRIDGE_ENDPOINT',
  'KINESIS_ENDPOINT',
  'SES_ENDPOINT',
  'ADMIN_KEY',
  'SECRETS_KEY',
  'OPENAI_API_KEY',
  // A bundle runs as on Lambda, parsing in-process: its thread is the function's sandbox here.
  'UNTRUSTED_PARSING',
]);

/** Names the template sets to resources and per-function values: the template's always win. */
const WIRING = /^(BUCKET_|QUEUE_URL_|AWS_|POWERTOOLS_SERVICE_NAME$|NODE_OPTIONS$)|_SECRET_ARN$/;

/**
 * `LOCAL_FUNCTIONS=bundles`: the stack synthesized (or reused) with the function assets `cdk deploy` uploads, and for
 * each function the environment its template gives it, resolved to the stand-ins, its own credentials (its name as
 * access key: the AWS front records each call by function) and every AWS endpoint pointed at the front.
 * `settings` are the deployment's function settings (tunables such as BOT_RATE_LIMIT_PER_MINUTE, MODEL_PROVIDER).
 */
export async function startBundlesMode(input: {
  names: LocalNames;
  dynamoEndpoint: string;
  awsEndpoint: string;
  /** The runner's STS, EventBridge and Kinesis stand-ins. */
  standInEndpoints: { sts: string; eventbridge: string; kinesis: string };
  /** The runner's SES v2 stand-in. */
  sesEndpoint?: string;
  adminKey: string;
  secretsKey: string;
  settings: Record<string, string | undefined>;
}): Promise<BundlesMode> {
  const deployment = localDeployment(deploymentSettings(input.settings));
  const { region } = input.names;
  const secrets: Record<string, string> = {
    [localSecretArn(region, 'adminKey')]: input.adminKey,
    [localSecretArn(region, 'secretsKey')]: input.secretsKey,
  };
  if (input.settings.OPENAI_API_KEY !== undefined)
    secrets[localSecretArn(region, 'modelApiKey')] = input.settings.OPENAI_API_KEY;
  const front = await startAwsFront({
    region,
    account: LOCAL_ACCOUNT,
    dynamoEndpoint: input.dynamoEndpoint,
    queuesAndBucketsEndpoint: input.awsEndpoint,
    standIns: input.standInEndpoints,
    ...(input.sesEndpoint ? { sesEndpoint: input.sesEndpoint } : {}),
    secrets,
  });
  // Queue URLs on the front (the SDK may send to the queue URL's host; fauxqs finds a queue by its name).
  const onFront = (urls: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(urls).map(([k, url]) => [k, `${front.endpoint}/${LOCAL_ACCOUNT}/${url.split('/').pop()}`]),
    );
  const names = { ...input.names, queueUrls: onFront(input.names.queueUrls), dlqUrls: onFront(input.names.dlqUrls) };
  const resolve = templateResolver(deployment, names);
  const settings = Object.fromEntries(
    Object.entries({
      ...LOCAL_DEFAULTS,
      ...Object.fromEntries(Object.entries(input.settings).filter(([, v]) => v !== undefined)),
    }).filter((e): e is [string, string] => e[1] !== undefined && !NOT_OVERRIDABLE.has(e[0]) && !WIRING.test(e[0])),
  );
  const passedThrough = Object.fromEntries(
    ['POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_METRICS_DISABLED'].flatMap((name) => {
      const value = process.env[name];
      return value ? [[name, value]] : [];
    }),
  );
  const launches: Record<string, BundleLaunch> = {};
  for (const [fn, f] of Object.entries(deployment.functions)) {
    const template = templateEnvironment(deployment, fn, resolve);
    launches[fn] = {
      fn,
      dir: f.dir,
      timeoutSeconds: f.timeoutSeconds,
      memoryMb: f.memoryMb,
      env: {
        PATH: process.env.PATH ?? '',
        TZ: 'UTC',
        LANG: 'en_US.UTF-8',
        AWS_REGION: region,
        AWS_DEFAULT_REGION: region,
        AWS_LAMBDA_FUNCTION_NAME: fn,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(f.memoryMb),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        LAMBDA_TASK_ROOT: f.dir,
        AWS_ACCESS_KEY_ID: fn,
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_DYNAMODB: front.endpoint,
        AWS_ENDPOINT_URL_SQS: front.endpoint,
        AWS_ENDPOINT_URL_S3: front.endpoint,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: front.endpoint,
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: front.endpoint,
        AWS_ENDPOINT_URL_TEXTRACT: front.endpoint,
        AWS_ENDPOINT_URL_STS: front.endpoint,
        AWS_ENDPOINT_URL_SNS: front.endpoint,
        AWS_ENDPOINT_URL_EVENTBRIDGE: front.endpoint,
        AWS_ENDPOINT_URL_KINESIS: front.endpoint,
        AWS_ENDPOINT_URL_SESV2: front.endpoint,
        // The runner's machine may have an AWS profile: the functions must not read it.
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        // The runner's own log level and metrics switch reach the bundles too (a test run turns both off).
        ...passedThrough,
        ...template,
        ...settings,
      },
    };
  }
  return { deployment, names, awsCalls: front.calls, launches, stop: () => front.stop() };
}
