import { fileURLToPath } from 'node:url';
import { queues } from '#shared/contract/queues.ts';
import { scheduledWorkers } from '#shared/contract/workers.ts';
import { mainTable } from '#shared/contract/table.ts';
import { architectureFor, buildFunctionsSync } from './bundling.ts';
import { functionSpecs, type FunctionSpec } from './functions.ts';

/**
 * What the deployed service costs, from AWS list prices and stated assumptions: per million Bots API requests, sends
 * and webhook deliveries, and the monthly floor when idle. Memory sizes come from shared/contract, so the numbers
 * follow the definitions. `npx tsx infra/cost.ts` prints the README's tables.
 */

/** US East (N. Virginia) list prices in USD, on-demand, no free tier (checked 2026-11). */
export const prices = {
  /** Lambda compute per GB-second (first 6 billion GB-s a month), by architecture. */
  lambdaGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 },
  lambdaRequest: 0.2 / 1e6,
  /** API Gateway REST API, per request (first 333 million a month). */
  apiRestRequest: 3.5 / 1e6,
  /** DynamoDB on-demand: per write request unit (1 KB) and read request unit (4 KB strongly consistent). */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoStorageGbMonth: 0.25,
  dynamoPitrGbMonth: 0.2,
  /** SQS standard queue, per request (a 64 KB chunk of a message; a batch of 10 is one request). */
  sqsRequest: 0.4 / 1e6,
  s3Get: 0.0004 / 1000,
  s3Put: 0.005 / 1000,
  s3StorageGbMonth: 0.023,
  /** CloudWatch Logs: ingestion per GB, storage per GB-month (compressed). */
  logsIngestGb: 0.5,
  logsStorageGbMonth: 0.03,
  /** CloudWatch standard-resolution alarm, per metric it evaluates, per month. */
  alarmMetricMonth: 0.1,
  /** CloudWatch dashboard per month (the first 3 in an account are free). */
  dashboardMonth: 3,
  /** CloudWatch custom metric (one name + dimension values, from EMF) per month, prorated by the hour it is emitted. */
  customMetricMonth: 0.3,
  /** X-Ray traces recorded, per million (100,000 a month free); default sampling: 1 a second, then 5 %. */
  xrayTracesPerMillion: 5,
  secretMonth: 0.4,
  secretPer10kCalls: 0.05,
  /** Amazon Nova Lite on Bedrock, per 1,000 tokens. */
  novaLiteInputPer1k: 0.00006,
  novaLiteOutputPer1k: 0.00024,
  /** Textract DetectDocumentText, per page (first million a month). */
  textractPage: 0.0015,
  /** Amazon SES outbound email (a common `smtp` provider), per message. */
  sesEmail: 0.0001,
} as const;

/** What one unit of work (one request, one send, one delivery) consumes. */
export interface UnitAssumptions {
  /** Function invocations: which function, how long it is billed (ms), how many units share one invocation. */
  lambda: { fn: string; billedMs: number; perInvocation?: number }[];
  apiRequests: number;
  dynamoReads: number;
  dynamoWrites: number;
  sqsRequests: number;
  s3Gets?: number;
  s3Puts?: number;
  /** Bytes of logs written (platform REPORT lines, API access log, application lines). */
  logBytes: number;
}

export interface Scenario {
  name: string;
  /** What is assumed, in words (the README prints it). */
  assumptions: string;
  unit: UnitAssumptions;
  /** Costs outside this stack's infrastructure (model tokens, OCR pages, provider fees), per unit, with a label. */
  external?: { label: string; usd: number };
}

export interface Breakdown {
  lambda: number;
  apiGateway: number;
  dynamodb: number;
  sqs: number;
  s3: number;
  logs: number;
  total: number;
}

const specsByFn = () => new Map(functionSpecs().map((s) => [s.fn, s]));

/** Per-million cost of a scenario, by service. */
export function perMillion(
  unit: UnitAssumptions,
  specs: Map<string, FunctionSpec> = specsByFn(),
  architectures: Record<string, 'arm64' | 'x86_64'> = {},
): Breakdown {
  let lambda = 0;
  for (const call of unit.lambda) {
    const spec = specs.get(call.fn);
    if (!spec) throw new Error(`No function ${call.fn} in shared/contract`);
    const share = 1 / (call.perInvocation ?? 1);
    const gbSeconds = (spec.memoryMb / 1024) * (call.billedMs / 1000);
    lambda += share * (gbSeconds * prices.lambdaGbSecond[architectures[call.fn] ?? 'arm64'] + prices.lambdaRequest);
  }
  const apiGateway = unit.apiRequests * prices.apiRestRequest;
  const dynamodb = unit.dynamoReads * prices.dynamoReadUnit + unit.dynamoWrites * prices.dynamoWriteUnit;
  const sqs = unit.sqsRequests * prices.sqsRequest;
  const s3 = (unit.s3Gets ?? 0) * prices.s3Get + (unit.s3Puts ?? 0) * prices.s3Put;
  const logs = (unit.logBytes / 1e9) * (prices.logsIngestGb + prices.logsStorageGbMonth);
  const m = 1e6;
  return {
    lambda: lambda * m,
    apiGateway: apiGateway * m,
    dynamodb: dynamodb * m,
    sqs: sqs * m,
    s3: s3 * m,
    logs: logs * m,
    total: (lambda + apiGateway + dynamodb + sqs + s3 + logs) * m,
  };
}

/** Log bytes per HTTP request: Lambda's START/END/REPORT JSON lines (~700 B) and the API's JSON access log (~450 B). */
const HTTP_LOG_BYTES = 1_150;

export const scenarios: Scenario[] = [
  {
    name: 'Bots API: health',
    assumptions:
      '50 ms billed; token GetItem, rate-limit UpdateItem, month balance GetItem; probes cached per instance',
    unit: {
      lambda: [{ fn: 'health', billedMs: 50 }],
      apiRequests: 1,
      dynamoReads: 2,
      dynamoWrites: 1,
      sqsRequests: 0,
      logBytes: HTTP_LOG_BYTES,
    },
  },
  {
    name: 'Bots API: search',
    assumptions: '60 ms billed (index cached in the instance); token, bot reads; rate-limit write',
    unit: {
      lambda: [{ fn: 'search', billedMs: 60 }],
      apiRequests: 1,
      dynamoReads: 2,
      dynamoWrites: 1,
      sqsRequests: 0,
      logBytes: HTTP_LOG_BYTES,
    },
  },
  {
    name: 'Bots API: completion',
    assumptions: '2 s billed (the function waits for the model); token, bot reads; rate-limit, charge, settle writes',
    unit: {
      lambda: [{ fn: 'completion', billedMs: 2_000 }],
      apiRequests: 1,
      dynamoReads: 2,
      dynamoWrites: 3,
      sqsRequests: 0,
      logBytes: HTTP_LOG_BYTES + 300,
    },
    external: {
      label: 'Nova Lite tokens (1,500 in, 300 out)',
      usd: 1.5 * prices.novaLiteInputPer1k + 0.3 * prices.novaLiteOutputPer1k,
    },
  },
  {
    name: 'Bots API: extract (text-layer PDF, ~5 pages)',
    assumptions: '1 s billed on x86_64 (native canvas); token read; rate-limit, charge, settle writes',
    unit: {
      lambda: [{ fn: 'extract', billedMs: 1_000 }],
      apiRequests: 1,
      dynamoReads: 1,
      dynamoWrites: 3,
      sqsRequests: 0,
      logBytes: HTTP_LOG_BYTES + 300,
    },
    external: { label: 'Textract, only for scanned pages', usd: 0 },
  },
  {
    name: 'Send (`POST /api/integration/generic`)',
    assumptions:
      '300 ms billed (one provider call); token, channel reads; credit charge write; one SQS message (message.sent)',
    unit: {
      lambda: [{ fn: 'send', billedMs: 300 }],
      apiRequests: 1,
      dynamoReads: 2,
      dynamoWrites: 1,
      sqsRequests: 1,
      logBytes: HTTP_LOG_BYTES,
    },
    external: { label: 'SES, if the channel sends through it', usd: prices.sesEmail },
  },
  {
    name: 'Webhook delivery (first attempt succeeds)',
    assumptions:
      'fan-out: 1 event → 1 delivery, batches of 10, 50 ms per batch, 1 Query; deliver: 200 ms billed per attempt (batch of 1, ' +
      'the worst case), 2 writes (the attempt record, the hourly counters); SQS: send + receive + delete on both queues',
    unit: {
      lambda: [
        { fn: 'fanout', billedMs: 50, perInvocation: 10 },
        { fn: 'deliver', billedMs: 200 },
      ],
      apiRequests: 0,
      dynamoReads: 1,
      dynamoWrites: 2,
      sqsRequests: 6,
      logBytes: 900,
    },
  },
];

/** The fixed monthly cost with no traffic at all. */
export function idleFloor(options: { alarmMetrics: number; secrets: number; sweepMs?: number } = defaultFloorInputs()) {
  const sweeper = scheduledWorkers.find((w) => w.fn === 'credit-sweeper');
  const runs = sweeper ? (30 * 24 * 60) / sweeper.everyMinutesOnAws : 0;
  const sweepGbS = sweeper ? (sweeper.memoryMb / 1024) * ((options.sweepMs ?? 100) / 1000) : 0;
  const sweeperUsd =
    runs * (sweepGbS * prices.lambdaGbSecond.arm64 + prices.lambdaRequest + prices.dynamoReadUnit) +
    ((runs * 700) / 1e9) * prices.logsIngestGb;
  const alarmsUsd = options.alarmMetrics * prices.alarmMetricMonth;
  const secretsUsd = options.secrets * prices.secretMonth;
  const dashboardUsd = prices.dashboardMonth;
  return {
    alarmsUsd,
    secretsUsd,
    sweeperUsd,
    dashboardUsd,
    runs,
    total: alarmsUsd + secretsUsd + sweeperUsd + dashboardUsd,
  };
}

/**
 * Alarm metrics of the default deployment (infra/alarms.ts): per queue, its dead-letter queue and the age of its
 * oldest message; per function, throttles and duration; per worker, errors; per scheduled worker, "not running" and
 * its schedule's dead-letter queue; the API's 5xx rate, 4xx rate (two) and latency; DynamoDB read and write
 * throttles, of the table and of each index; and the webhook failure rate's two (failed attempts, receives).
 */
export function defaultFloorInputs() {
  const specs = functionSpecs();
  const queueCount = Object.keys(queues).length;
  const workers = specs.filter((s) => s.queueWorker || s.scheduledWorker).length;
  const scheduled = specs.filter((s) => s.scheduledWorker).length;
  const deliver = specs.some((s) => s.queueWorker?.queue === 'deliveries');
  const api = 1 + 2 + 1;
  const table = 2 * (1 + mainTable.globalSecondaryIndexes.length);
  return {
    alarmMetrics: 2 * queueCount + 2 * specs.length + workers + 2 * scheduled + api + table + (deliver ? 2 : 0),
    secrets: 2,
  };
}

const usd = (n: number) => (n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(3)}`);

/** The README tables (architectures: as the stack picks them, from what each bundle ships). */
export function costTables(architectures: Record<string, 'arm64' | 'x86_64'>): string {
  const lines = [
    '| per million | Lambda | API Gateway | DynamoDB | SQS | logs | **total (AWS infra)** | outside the stack |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const s of scenarios) {
    const b = perMillion(s.unit, undefined, architectures);
    const external = s.external
      ? `${s.external.label}: ${s.external.usd ? usd(s.external.usd * 1e6) : 'per page'}`
      : '';
    lines.push(
      `| ${s.name} | ${usd(b.lambda)} | ${usd(b.apiGateway)} | ${usd(b.dynamodb)} | ${usd(b.sqs)} | ${usd(b.logs)} | **${usd(b.total)}** | ${external} |`,
    );
  }
  const floor = idleFloor();
  const inputs = defaultFloorInputs();
  lines.push('', '| idle, per month | |', '|---|---:|');
  lines.push(`| CloudWatch alarms (${inputs.alarmMetrics} alarm metrics × $0.10) | ${usd(floor.alarmsUsd)} |`);
  lines.push(`| Secrets Manager (${inputs.secrets} secrets × $0.40) | ${usd(floor.secretsUsd)} |`);
  lines.push(`| CloudWatch dashboard (free if it is one of the account's first 3) | ${usd(floor.dashboardUsd)} |`);
  lines.push(
    `| credit sweeper (${floor.runs.toLocaleString('en-US')} runs: Lambda, one GSI Query, REPORT lines) | ${usd(floor.sweeperUsd)} |`,
  );
  lines.push(
    `| **total** (plus storage: DynamoDB $0.25 + PITR $0.20 per GB, S3 $0.023 per GB) | **${usd(floor.total)}** |`,
  );
  lines.push(
    '',
    `With traffic, two more lines: each metric series the functions emit (a name and its dimension values, such as ` +
      `WebhookAttempts for outcome=success from deliver) costs $${prices.customMetricMonth.toFixed(2)} a month, prorated by the ` +
      `hour it is emitted (about 50 series when every feature is used: ~$15); X-Ray keeps 1 trace a second plus 5 % of ` +
      `the rest, $${prices.xrayTracesPerMillion} per million traces after 100,000 free a month (a steady 10 requests a ` +
      `second records about 3.8 million a month: ~$18; a sampling rule of its own lowers that).`,
  );
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const bundles = buildFunctionsSync(functionSpecs().map((s) => s.fn));
  console.log(costTables(Object.fromEntries([...bundles].map(([fn, b]) => [fn, architectureFor(b.unbundled)]))));
  for (const s of scenarios) console.log(`- ${s.name}: ${s.assumptions}`);
}
