import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  LoggingFormat,
  Runtime,
  Tracing,
  type IFunction,
} from 'aws-cdk-lib/aws-lambda';
import { SqsDestination as SqsFailureDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { secrets as secretDefinitions, type SecretKey } from '#shared/contract/access.ts';
import { buckets as bucketDefinitions, type BucketKey } from '#shared/contract/buckets.ts';
import { queueUrlEnv, type QueueKey } from '#shared/contract/queues.ts';
import { createAlarms } from './alarms.ts';
import { createBuckets, createQueues, createSecrets, createTable, notifyObjectsCreated } from './storage.ts';
import { createApi, STAGE_NAME } from './api.ts';
import { createDashboard } from './dashboard.ts';
import { createInboundMail, createSesEvents, SES_CONFIGURATION_SET } from './inbound-mail.ts';
import { buildFunctionsSync } from './bundle-cache.ts';
import type { BundleAnalysis } from './bundling.ts';
import { architectureFor } from './unbundled-packages.ts';
import {
  functionSpecs,
  pascal,
  sharedDefinitions,
  specsForDeployment,
  type FunctionSpec,
  type ResourceDefinitions,
} from './functions.ts';
import { acknowledgeFindings, acknowledgeTracing } from './acknowledgements.ts';
import { type CapacityPlan, capacityPlan } from './capacity-plan.ts';
import { bedrockModelArns, statementsFor, type AccessTargets } from './permissions.ts';
import { bedrockModelIds, defaultSettings, type DeploymentSettings } from './settings.ts';

export interface SwitchboardStackProps extends StackProps {
  settings?: DeploymentSettings;
  /** The resource definitions to build from; the shared ones unless a test injects others. */
  definitions?: ResourceDefinitions;
}

/**
 * The whole service on AWS, generated from shared/contract: one DynamoDB table, SQS queues with dead-letter queues,
 * S3 buckets, one Lambda per function folder the definitions name (routes, fallback, queue and scheduled workers),
 * each with a role granting exactly its declared access, the Regional REST API in front, and alarms.
 */
export class SwitchboardStack extends Stack {
  readonly functions: Record<string, NodejsFunction> = {};
  readonly roles: Record<string, Role> = {};
  readonly specs: FunctionSpec[];
  readonly bundles: Map<string, BundleAnalysis>;
  /** Concurrency and throttles sized for the capacity target within the account's quotas (./capacity-plan.ts). */
  readonly plan: CapacityPlan;

  constructor(scope: Construct, id: string, props: SwitchboardStackProps = {}) {
    super(scope, id, props);
    const settings = props.settings ?? defaultSettings;
    const definitions = props.definitions ?? sharedDefinitions;
    Tags.of(this).add('app', 'switchboard');

    const table = createTable(this, settings.keepPreviousConversationIndex === true);
    const { queues, deadLetterQueues } = createQueues(this);
    const buckets = createBuckets(this);
    notifyObjectsCreated(buckets, queues);
    this.specs = specsForDeployment(functionSpecs(definitions), settings);
    this.plan = capacityPlan(settings);
    const secrets = createSecrets(this, new Set(this.specs.flatMap((s) => s.access.secrets ?? [])), settings);
    const targets: AccessTargets = {
      table,
      queues,
      buckets,
      secrets,
      bedrockModelArns: bedrockModelArns(this, bedrockModelIds(settings)),
      ...(settings.keepPreviousConversationIndex ? { previousConversationIndex: true } : {}),
    };

    // ---- Functions ----------------------------------------------------------------------------------------------
    // Every function bundled in one esbuild run (infra/bundling.ts); each Lambda's code is its bundle folder.
    this.bundles = buildFunctionsSync(
      this.specs.map((s) => s.fn),
      { ocrEngine: settings.ocrEngine },
    );
    // Every function parses shared/config at cold start, which requires TABLE_NAME; the rest is per declaration.
    const common: Record<string, string> = {
      SWITCHBOARD_RUNTIME: 'aws',
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: table.tableName,
      ...settings.environment,
    };
    for (const spec of this.specs) {
      this.functions[spec.fn] = this.createFunction(spec, { settings, targets, common, queues });
    }
    this.connectQueueWorkers(queues);
    const scheduleDeadLetterQueues = this.scheduleWorkers();

    // ---- API and alarms -----------------------------------------------------------------------------------------
    const api = createApi(this, {
      definitions,
      functions: this.functions as Record<string, IFunction>,
      settings,
      methodThrottles: this.plan.methodThrottles,
    });
    // What Twilio signs and channel answers show. The RestApi itself depends on no function, so the
    // functions may reference its id; the stage name is a literal, not the Stage resource (which would be a cycle).
    const publicBaseUrl =
      settings.publicBaseUrl ??
      Fn.join('', ['https://', api.restApiId, '.execute-api.', this.region, '.', this.urlSuffix, '/', STAGE_NAME]);
    // The console function: the document lists it first, and pages load their assets below its path.
    for (const spec of this.specs)
      if (spec.routes.some((r) => /^\/(inbound|admin|console)\//.test(r.path)))
        this.functions[spec.fn]!.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
    // The console's pages post knowledge files to the knowledge bucket and preview media from the transfer bucket, at
    // the virtual-hosted addresses the AWS SDK presigns: its Content-Security-Policy must allow both.
    this.functions.console?.addEnvironment(
      'SITE_STORE_ORIGINS',
      Fn.join(
        ',',
        (['knowledge', 'transfer'] as const).map((key) =>
          Fn.join('', ['https://', buckets[key].bucketName, '.s3.', this.region, '.', this.urlSuffix]),
        ),
      ),
    );
    if (queues.inbound) {
      createInboundMail(this, {
        bucket: buckets.transfer,
        inboundQueue: queues.inbound,
        recipients: settings.inboundMailRecipients ?? [],
      });
      createSesEvents(this, { inboundQueue: queues.inbound });
    }
    createAlarms(this, {
      api,
      functions: this.functions,
      specs: this.specs,
      table,
      queues,
      deadLetterQueues,
      scheduleDeadLetterQueues,
      deliveriesQueue: queues.deliveries,
      settings,
      deliverFunction: this.specs.find((s) => s.queueWorker?.queue === 'deliveries')?.fn,
    });
    createDashboard(this, { api, functions: this.functions, specs: this.specs, table, queues });
    createOutputs(this, { api, table, buckets, secrets });
    acknowledgeFindings(this, { api, buckets, secrets, roles: this.roles, specs: this.specs });
    acknowledgeTracing(Object.values(this.functions), this.roles, Object.values(scheduleDeadLetterQueues));
  }

  /** Queue workers: partial batch responses, so one bad message is retried alone. */
  private connectQueueWorkers(queues: Record<QueueKey, Queue>): void {
    for (const spec of this.specs) {
      const worker = spec.queueWorker;
      if (!worker) continue;
      // The plan's batch: the contract's, or larger where the target needs more batches than an event source takes.
      const batching = this.plan.workerBatching[spec.fn] ?? {
        batchSize: worker.batchSize,
        windowSeconds: worker.batchWindowSeconds,
      };
      this.functions[spec.fn]!.addEventSource(
        new SqsEventSource(queues[worker.queue], {
          batchSize: batching.batchSize,
          maxBatchingWindow: batching.windowSeconds > 0 ? Duration.seconds(batching.windowSeconds) : undefined,
          maxConcurrency: this.plan.workerConcurrency[spec.fn] ?? worker.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }
  }

  /**
   * Scheduled workers. Each run is idempotent and the next one is at most minutes away: no retries of a missed run.
   * But no run is dropped silently either: one EventBridge could not deliver, or one that failed (Lambda's
   * asynchronous invocation, no retry), lands in the schedule's dead-letter queue, which is alarmed.
   */
  private scheduleWorkers(): Record<string, Queue> {
    const deadLetterQueues: Record<string, Queue> = {};
    for (const spec of this.specs) {
      const worker = spec.scheduledWorker;
      if (!worker) continue;
      const fn = this.functions[spec.fn]!;
      const dlq = new Queue(this, `${pascal(spec.fn)}ScheduleDeadLetterQueue`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      deadLetterQueues[spec.fn] = dlq;
      fn.configureAsyncInvoke({ retryAttempts: 0, onFailure: new SqsFailureDestination(dlq) });
      new Rule(this, `${pascal(spec.fn)}Schedule`, {
        description: `Runs ${spec.fn} every ${worker.everyMinutesOnAws} minute(s)`,
        schedule: Schedule.rate(Duration.minutes(worker.everyMinutesOnAws)),
        targets: [
          new LambdaTarget(fn, {
            retryAttempts: 0,
            maxEventAge: Duration.minutes(worker.everyMinutesOnAws),
            deadLetterQueue: dlq,
          }),
        ],
      });
    }
    return deadLetterQueues;
  }

  private createFunction(spec: FunctionSpec, ctx: FunctionContext): NodejsFunction {
    const id = pascal(spec.fn);
    const bundle = this.bundles.get(spec.fn);
    if (!bundle) throw new Error(`functions/${spec.fn}/handler.ts could not be bundled`);
    const logGroup = new LogGroup(this, `${id}Logs`, {
      retention: ctx.settings.logRetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = this.createRole(spec, logGroup, ctx.targets);
    const architecture = architectureFor(bundle.unbundled) === 'x86_64' ? Architecture.X86_64 : Architecture.ARM_64;
    return new NodejsFunction(this, `${id}Function`, {
      description: `Switchboard ${spec.fn}`,
      // Bundled by infra/bundling.ts (esbuild, ESM, minified, external source maps, unbundled packages beside it).
      code: Code.fromAsset(bundle.dir),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture,
      memorySize: spec.memoryMb,
      timeout: Duration.seconds(spec.timeoutSeconds),
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      environment: functionEnvironment(spec, ctx),
      awsSdkConnectionReuse: false,
      // Lambda records each invocation's segment; no X-Ray SDK in the bundle (cold import: bench/history/2026-11-observability.md).
      tracing: Tracing.ACTIVE,
      ...(this.plan.reservedConcurrency[spec.fn]
        ? { reservedConcurrentExecutions: this.plan.reservedConcurrency[spec.fn] }
        : {}),
    });
  }

  /** One role per function, written out: logging to its own log group and what it declares, nothing else. */
  private createRole(spec: FunctionSpec, logGroup: LogGroup, targets: AccessTargets): Role {
    const role = new Role(this, `${pascal(spec.fn)}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Switchboard ${spec.fn}`,
    });
    this.roles[spec.fn] = role;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'OwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    for (const statement of statementsFor(spec.access, targets)) role.addToPrincipalPolicy(statement);
    return role;
  }
}

interface FunctionContext {
  settings: DeploymentSettings;
  targets: AccessTargets;
  common: Record<string, string>;
  queues: Record<QueueKey, Queue>;
}

/** A function's environment: the common settings, then what its declarations need (queues, buckets, secrets, model). */
function functionEnvironment(spec: FunctionSpec, ctx: FunctionContext): Record<string, string> {
  const environment: Record<string, string> = { ...ctx.common, POWERTOOLS_SERVICE_NAME: spec.fn };
  const heapCap = Math.max(0, ...spec.routes.map((r) => r.maxOldSpaceMb ?? 0));
  if (heapCap > 0) environment.NODE_OPTIONS = `${ctx.common.NODE_OPTIONS ?? ''} --max-old-space-size=${heapCap}`.trim();
  if (spec.access.bedrock || spec.access.secrets?.includes('modelApiKey'))
    Object.assign(environment, modelEnvironment(ctx.settings));
  if (spec.ocr) environment.OCR_ENGINE = ctx.settings.ocrEngine;
  for (const key of spec.access.sendTo ?? []) environment[queueUrlEnv(key)] = ctx.queues[key].queueUrl;
  if (spec.access.ses?.send) environment.SES_CONFIGURATION_SET = SES_CONFIGURATION_SET;
  if (spec.queueWorker) environment[queueUrlEnv(spec.queueWorker.queue)] = ctx.queues[spec.queueWorker.queue].queueUrl;
  for (const key of Object.keys(spec.access.buckets ?? {}) as BucketKey[])
    environment[bucketDefinitions[key].envVar] = ctx.targets.buckets[key].bucketName;
  for (const key of spec.access.secrets ?? []) {
    const secret = ctx.targets.secrets[key];
    if (secret) environment[secretDefinitions[key].envVar] = secret.secretArn;
  }
  return environment;
}

function createOutputs(
  scope: Construct,
  resources: {
    api: { url: string };
    table: Table;
    buckets: Record<BucketKey, Bucket>;
    secrets: Partial<Record<SecretKey, Secret>>;
  },
): void {
  new CfnOutput(scope, 'ApiBaseUrl', {
    value: resources.api.url,
    description: 'Base URL: {base_url}/api/v1/ai/*, {base_url}/admin/v1/*',
  });
  new CfnOutput(scope, 'TableName', { value: resources.table.tableName });
  for (const key of Object.keys(resources.buckets) as BucketKey[])
    new CfnOutput(scope, `${pascal(key)}BucketName`, { value: resources.buckets[key].bucketName });
  for (const [key, secret] of Object.entries(resources.secrets) as [SecretKey, Secret][]) {
    new CfnOutput(scope, `${pascal(key)}SecretArn`, {
      value: secret.secretArn,
      description: secretDefinitions[key].description,
    });
  }
}

/** The model settings, for the functions that talk to a model (they declare Bedrock or the model API key). */
export function modelEnvironment(settings: DeploymentSettings): Record<string, string> {
  return {
    MODEL_PROVIDER: settings.modelProvider,
    ...(settings.modelProvider === 'bedrock' ? { BEDROCK_MODEL_ID: settings.bedrockModelIds[0]! } : {}),
    ...(settings.openaiBaseUrl ? { OPENAI_BASE_URL: settings.openaiBaseUrl } : {}),
    ...(settings.openaiModel ? { OPENAI_MODEL: settings.openaiModel } : {}),
    EMBEDDINGS_PROVIDER: settings.embeddingsProvider,
    ...(settings.embeddingsModel ? { EMBEDDINGS_MODEL: settings.embeddingsModel } : {}),
    ...(settings.embeddingsDimensions ? { EMBEDDINGS_DIMENSIONS: String(settings.embeddingsDimensions) } : {}),
    ...(settings.embeddingsBaseUrl ? { EMBEDDINGS_BASE_URL: settings.embeddingsBaseUrl } : {}),
  };
}
