/**
 * What a whole management request costs the management function in CPU, in this process: the admin function's own
 * handler (`functions/admin/handler.ts`, its composition root as deployed) loaded here against a running service's
 * stand-ins (the table's CPU is that service's, not counted), and given API Gateway events as the gateway gives them.
 * Each route is asked with the operator's admin key and with a project key (`sbm_…`), interleaved (each variant in
 * turn, 50 requests at a time, the order reversed every other turn); with a baseline
 * tree (the commit before, with its node_modules), its own handler is loaded beside this one and asked the same.
 * The project key's cost is that request's CPU less the admin key's on the same route, per round, the median taken.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { buckets } from '#shared/contract/buckets.ts';
import { type QueueKey, queues, queueUrlEnv } from '#shared/contract/queues.ts';
import { mainTable } from '#shared/contract/table.ts';
import { machine, median } from './harness.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface RequestsBench {
  /** The running service's stand-ins (its `/local/aws`) and the secrets its functions were given. */
  stand: { region: string; endpoints: Record<string, string> };
  adminKey: string;
  secretsKey: string;
  projectId: string;
  projectKey: string;
  baseline?: string | undefined;
  rounds: number;
  calls: number;
  /** Only the variants whose name holds this text (to profile one alone, e.g. `this tree | GET /admin/v1/projects/{p} | project key`). */
  only?: string | undefined;
  /** With `--mode calls`: how many of the functions that differ most to list per tree and route. */
  top?: number | undefined;
}

/** The functions' settings, as the local service gives them, pointed at the running service's stand-ins. */
async function wire(bench: RequestsBench) {
  const e = bench.stand.endpoints;
  const sqs = new SQSClient({
    region: bench.stand.region,
    endpoint: e.sqs,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const queueUrls = await Promise.all(
    (Object.keys(queues) as QueueKey[]).map(async (k) => {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queues[k].localName }));
      return [queueUrlEnv(k), QueueUrl!] as const;
    }),
  );
  sqs.destroy();
  Object.assign(process.env, {
    SWITCHBOARD_RUNTIME: 'local',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    AWS_REGION: bench.stand.region,
    TABLE_NAME: mainTable.localName,
    DYNAMODB_ENDPOINT: e.dynamodb,
    SQS_ENDPOINT: e.sqs,
    S3_ENDPOINT: e.s3,
    SNS_ENDPOINT: e.sns,
    ...(e.sts ? { STS_ENDPOINT: e.sts } : {}),
    ...(e.eventbridge ? { EVENTBRIDGE_ENDPOINT: e.eventbridge } : {}),
    ...(e.kinesis ? { KINESIS_ENDPOINT: e.kinesis } : {}),
    ...(e.ses ? { SES_ENDPOINT: e.ses } : {}),
    ADMIN_KEY: bench.adminKey,
    SECRETS_KEY: bench.secretsKey,
    ...Object.fromEntries(queueUrls),
    ...Object.fromEntries(Object.values(buckets).map((b) => [b.envVar, b.localName])),
  });
}

const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'admin',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:admin',
  memoryLimitInMB: '512',
  awsRequestId: 'bench',
  logGroupName: '/aws/lambda/admin',
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 30_000,
  done: () => {},
  fail: () => {},
  succeed: () => {},
} as Context;

function event(path: string, key: string): APIGatewayProxyEvent {
  const headers = { authorization: `Bearer ${key}`, host: '127.0.0.1' };
  return {
    resource: '/admin/{proxy+}',
    path,
    httpMethod: 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      authorizer: null,
      httpMethod: 'GET',
      path,
      protocol: 'HTTP/1.1',
      requestId: 'bench',
      requestTimeEpoch: Date.now(),
      resourceId: 'bench',
      resourcePath: '/admin/{proxy+}',
      stage: 'local',
      identity: { sourceIp: '127.0.0.1', userAgent: 'bench' },
    } as APIGatewayProxyEvent['requestContext'],
  };
}

/** CPU ms of `n` sequential requests (this process's user + system time). */
async function cpuOf(n: number, run: () => Promise<APIGatewayProxyResult>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Requests of one variant measured in a row, the variants taking turns within a round (the machine drifts). */
const CHUNK = 50;

export type Variant = { name: string; run: () => Promise<APIGatewayProxyResult> };

/** Each tree's handler loaded in this process, and a variant per tree, route and caller (`--only` applied). */
export async function variantsOf(
  bench: RequestsBench,
): Promise<{ variants: Variant[]; handlers: Map<string, Handler> }> {
  await wire(bench);
  const trees: [string, string][] = [['this tree', resolve(import.meta.dirname, '../..')]];
  if (bench.baseline) trees.push([`baseline (${bench.baseline})`, resolve(bench.baseline)]);
  const handlers = new Map<string, Handler>();
  for (const [name, dir] of trees) {
    const module = await import(pathToFileURL(join(dir, 'functions/admin/handler.ts')).href);
    handlers.set(name, module.handler as Handler);
  }
  const routes = [`/admin/v1/projects/${bench.projectId}`, `/admin/v1/projects/${bench.projectId}/integrations`];
  const variants: Variant[] = [];
  for (const [tree, handler] of handlers) {
    for (const path of routes) {
      for (const [who, key] of [
        ['admin key', bench.adminKey],
        ['project key', bench.projectKey],
      ] as const) {
        const e = event(path, key);
        const name = `${tree} | GET ${path.replace(bench.projectId, '{p}')} | ${who}`;
        if (bench.only !== undefined && !name.includes(bench.only)) continue;
        variants.push({
          name,
          run: () => handler(e, context),
        });
      }
    }
  }
  for (const v of variants) {
    const res = await v.run();
    if (res.statusCode !== 200) throw new Error(`${v.name}: ${res.statusCode} ${res.body}`);
    await cpuOf(100, v.run);
  }
  return { variants, handlers };
}

/** Runs the rounds and prints the table and the project key's cost per route and tree. */
export async function runRequestsBench(bench: RequestsBench): Promise<void> {
  const { variants, handlers } = await variantsOf(bench);
  const results = new Map<string, number[]>();
  for (const v of variants) {
    const res = await v.run();
    if (res.statusCode !== 200) throw new Error(`${v.name}: ${res.statusCode} ${res.body}`);
    await cpuOf(100, v.run);
  }
  const startedAt = new Date().toISOString();
  const loads: string[] = [];
  for (let round = 0; round < bench.rounds; round++) {
    loads.push(loadavg()[0]!.toFixed(1));
    const spent = new Map(variants.map((v) => [v.name, 0]));
    for (let done = 0, turn = 0; done < bench.calls; done += CHUNK, turn++) {
      const n = Math.min(CHUNK, bench.calls - done);
      for (const v of turn % 2 ? [...variants].reverse() : variants) {
        spent.set(v.name, spent.get(v.name)! + (await cpuOf(n, v.run)));
      }
    }
    for (const [name, ms] of spent) results.set(name, [...(results.get(name) ?? []), ms / bench.calls]);
    console.error(`round ${round + 1}: ${[...results].map(([k, v]) => `${k} ${v.at(-1)!.toFixed(4)}`).join('; ')}`);
  }
  console.log(
    `\n#### Whole management requests, in this process (${bench.rounds} rounds of ${bench.calls} requests each, ` +
      `${machine()}, started ${startedAt}, load at each round's start ${loads.join('/')})`,
  );
  console.log('| tree | route | caller | CPU ms per request (median) | rounds |');
  console.log('|---|---|---|---|---|');
  for (const [name, cpu] of results) {
    console.log(`| ${name} | ${median(cpu).toFixed(4)} | ${cpu.map((c) => c.toFixed(4)).join(', ')} |`);
  }
  for (const name of results.keys()) {
    if (!name.endsWith('| project key')) continue;
    const withKey = results.get(name)!;
    const withAdmin = results.get(name.replace(/project key$/, 'admin key'));
    if (!withAdmin) continue;
    const deltas = withKey.map((c, i) => c - withAdmin[i]!);
    console.log(
      `project key's cost, ${name.replace(/ \| project key$/, '')}: ${median(deltas).toFixed(4)} ms per request ` +
        `(median of per-round differences: ${deltas.map((d) => d.toFixed(4)).join(', ')})`,
    );
  }
  // The admin key's request in this tree against the commit before's: what the change did to everyone else's.
  const base = [...handlers.keys()][1];
  for (const name of results.keys()) {
    if (!base || !name.startsWith('this tree') || !name.endsWith('| admin key')) continue;
    const these = results.get(name)!;
    const before = results.get(name.replace('this tree', base));
    if (!before) continue;
    const ratios = these.map((c, i) => c / before[i]!);
    console.log(
      `admin key, this tree \u00f7 baseline, ${name.split(' | ')[1]}: ${median(ratios).toFixed(3)} ` +
        `(per round: ${ratios.map((r) => r.toFixed(3)).join(', ')})`,
    );
  }
  // The project key's cost in this tree against the commit before's, per round (same round, same load).
  for (const name of results.keys()) {
    if (!base || !name.startsWith('this tree') || !name.endsWith('| project key')) continue;
    const cost = (tree: string) => {
      const key = results.get(name.replace('this tree', tree));
      const admin = results.get(name.replace('this tree', tree).replace(/project key$/, 'admin key'));
      return key && admin ? key.map((c, i) => c - admin[i]!) : undefined;
    };
    const these = cost('this tree');
    const before = cost(base);
    if (!these || !before) continue;
    const ratios = these.map((c, i) => c / before[i]!);
    console.log(
      `project key's cost, this tree \u00f7 baseline, ${name.split(' | ')[1]}: ${median(ratios).toFixed(3)} ` +
        `(per round: ${ratios.map((r) => r.toFixed(3)).join(', ')})`,
    );
  }
  console.log(
    `load after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
