import { pascal } from '#infra/functions.ts';
import { queueWorkers } from '#shared/contract/workers.ts';
import type { Projection } from './item-size.ts';

/**
 * What the capacity model reads from the synthesized CloudFormation template (never restated by hand): the table's
 * keys and each index's keys and projection; each function's memory, reserved concurrency and queue trigger; the
 * queues that are FIFO; the API stage's and methods' throttles.
 */

type Resource = { Type: string; Properties?: Record<string, any> };
export type TemplateJson = { Resources?: Record<string, Resource>; [key: string]: unknown };

export interface IndexSchema {
  name: string;
  partitionKey: string;
  sortKey?: string;
  projection: Projection;
}

export interface TableSchema {
  partitionKey: string;
  sortKey?: string;
  /** The attribute whose epoch seconds expire an item (TTL), if any. */
  ttlAttribute?: string;
  indexes: IndexSchema[];
}

const keyOf = (schema: { AttributeName: string; KeyType: string }[], type: 'HASH' | 'RANGE') =>
  schema.find((k) => k.KeyType === type)?.AttributeName;

/** The main table's key schema and its global secondary indexes, as the template defines them. */
export function tableSchema(template: TemplateJson): TableSchema {
  const tables = Object.entries(template.Resources ?? {}).filter(([, r]) => r.Type === 'AWS::DynamoDB::Table');
  if (tables.length !== 1) throw new Error(`expected one DynamoDB table in the template, found ${tables.length}`);
  const props = tables[0]![1].Properties!;
  const partitionKey = keyOf(props.KeySchema, 'HASH')!;
  const sortKey = keyOf(props.KeySchema, 'RANGE');
  const tableKeys = [partitionKey, ...(sortKey ? [sortKey] : [])];
  const indexes = ((props.GlobalSecondaryIndexes ?? []) as any[]).map((gsi): IndexSchema => {
    const indexPartitionKey = keyOf(gsi.KeySchema, 'HASH')!;
    const indexSortKey = keyOf(gsi.KeySchema, 'RANGE');
    return {
      name: gsi.IndexName,
      partitionKey: indexPartitionKey,
      ...(indexSortKey ? { sortKey: indexSortKey } : {}),
      projection: {
        type: gsi.Projection?.ProjectionType ?? 'ALL',
        keys: [...new Set([...tableKeys, indexPartitionKey, ...(indexSortKey ? [indexSortKey] : [])])],
        include: gsi.Projection?.NonKeyAttributes ?? [],
      },
    };
  });
  const ttl = props.TimeToLiveSpecification;
  return {
    partitionKey,
    ...(sortKey ? { sortKey } : {}),
    ...(ttl?.Enabled ? { ttlAttribute: ttl.AttributeName } : {}),
    indexes,
  };
}

export interface FunctionCaps {
  fn: string;
  memoryMb: number;
  timeoutSeconds: number;
  architecture: string;
  /** Reserved concurrency: both what the function is guaranteed and the most it may run. */
  reserved?: number;
  /** A queue worker's event source: its queue (construct id), batch size and maximum concurrency. */
  trigger?: { queue: string; batchSize: number; maxConcurrency?: number };
}

export interface ApiThrottle {
  /** `*` for the stage-wide default, else the method (`POST /inbound/twilio/{channelId}`). */
  method: string;
  rate: number;
  burst: number;
}

export interface DeploymentCaps {
  functions: FunctionCaps[];
  /** Queue construct id → FIFO or not. */
  fifoQueues: string[];
  /** The stage's method settings (the default `*`, then per method). */
  apiThrottles: ApiThrottle[];
}

/** Function, queue and API limits as the template configures them. */
export function deploymentCaps(template: TemplateJson): DeploymentCaps {
  const resources = Object.entries(template.Resources ?? {});
  const logicalIdOf = (ref: unknown): string | undefined => {
    const r = ref as { Ref?: string; 'Fn::GetAtt'?: [string, string] } | undefined;
    return r?.Ref ?? r?.['Fn::GetAtt']?.[0];
  };
  const fnByLogicalId = new Map<string, FunctionCaps>();
  for (const [id, r] of resources) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const description = String(r.Properties?.Description ?? '');
    if (!description.startsWith('Switchboard ')) continue;
    fnByLogicalId.set(id, {
      fn: description.slice('Switchboard '.length),
      memoryMb: r.Properties?.MemorySize ?? 128,
      timeoutSeconds: r.Properties?.Timeout ?? 3,
      architecture: (r.Properties?.Architectures ?? ['x86_64'])[0],
      ...(r.Properties?.ReservedConcurrentExecutions !== undefined
        ? { reserved: r.Properties.ReservedConcurrentExecutions }
        : {}),
    });
  }
  for (const [, r] of resources) {
    if (r.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const fn = fnByLogicalId.get(logicalIdOf(r.Properties?.FunctionName) ?? '');
    if (!fn) continue;
    fn.trigger = {
      queue: logicalIdOf(r.Properties?.EventSourceArn) ?? '',
      batchSize: r.Properties?.BatchSize ?? 10,
      ...(r.Properties?.ScalingConfig?.MaximumConcurrency
        ? { maxConcurrency: r.Properties.ScalingConfig.MaximumConcurrency }
        : {}),
    };
  }
  const fifoQueues = resources
    .filter(([, r]) => r.Type === 'AWS::SQS::Queue' && r.Properties?.FifoQueue)
    .map(([id]) => id);
  const apiThrottles: ApiThrottle[] = [];
  for (const [, r] of resources) {
    if (r.Type !== 'AWS::ApiGateway::Stage') continue;
    for (const m of (r.Properties?.MethodSettings ?? []) as any[]) {
      if (m.ThrottlingRateLimit === undefined) continue;
      // `/*` is every method; else `/` then the resource path with each `/` written `~1`.
      const path = String(m.ResourcePath) === '/*' ? '/*' : String(m.ResourcePath).slice(1).replace(/~1/g, '/');
      apiThrottles.push({
        method: path === '/*' ? '*' : `${m.HttpMethod === '*' ? 'ANY' : m.HttpMethod} ${path}`,
        rate: m.ThrottlingRateLimit,
        burst: m.ThrottlingBurstLimit ?? m.ThrottlingRateLimit,
      });
    }
  }
  return { functions: [...fnByLogicalId.values()], fifoQueues, apiThrottles };
}

/**
 * The table alone, synthesized by the function the stack defines it with (infra/storage.ts `createTable`): its keys,
 * indexes and projections as a deployment gets them, in a fraction of the whole stack's synthesis.
 */
export async function synthesizeTable(): Promise<TemplateJson> {
  const [{ App, Stack }, { Template }, { createTable }] = await Promise.all([
    import('aws-cdk-lib'),
    import('aws-cdk-lib/assertions'),
    import('#infra/storage.ts'),
  ]);
  const app = new App();
  const stack = new Stack(app, 'Table');
  createTable(stack);
  return Template.fromStack(stack).toJSON() as TemplateJson;
}

/**
 * The queue workers' event sources as the contract defines them (batch sizes; no throttles, no reservations): enough
 * for a scenario's partition and message-group rows without synthesizing the whole stack.
 */
export function contractCaps(): DeploymentCaps {
  return {
    functions: queueWorkers.map((w) => ({
      fn: w.fn,
      memoryMb: w.memoryMb,
      timeoutSeconds: w.timeoutSeconds,
      architecture: 'arm64',
      trigger: { queue: `${pascal(w.queue)}Queue`, batchSize: w.batchSize, maxConcurrency: w.maxConcurrency },
    })),
    fifoQueues: [],
    apiThrottles: [],
  };
}
