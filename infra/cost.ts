import { fileURLToPath } from 'node:url';
import { queues, queues as queueDefinitions } from '#shared/contract/queues.ts';
import { scheduledWorkers } from '#shared/contract/workers.ts';
import { mainTable } from '#shared/contract/table.ts';
import { buildFunctionsSync } from './bundle-cache.ts';
import { architectureFor } from './unbundled-packages.ts';
import { WORKLOAD_BATCH_ITEMS } from './capacity-target.ts';
import { durationOf } from './durations.ts';
import { functionSpecs, type FunctionSpec } from './functions.ts';
import { type RecordedUnits, recordedUnits, unitsOf } from './recorded-units.ts';

/**
 * What the deployed service costs, from AWS list prices and the units each request type was recorded using on the
 * wire (./recorded-units.json, written by `npx tsx bench/capacity.ts --write`): per million requests of each route,
 * with storage, and the monthly floor when idle. Memory sizes come from shared/contract and billed durations from
 * ./durations.ts (stated assumptions); no unit count is written here. `npx tsx infra/cost.ts` prints the tables of
 * docs/operations.md.
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
  /** SQS, per request (a 64 KB chunk of a message; a batch of 10 is one request): standard and FIFO queues. */
  sqsRequest: 0.4 / 1e6,
  sqsFifoRequest: 0.5 / 1e6,
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

/** A row of the cost table: one or more recorded request types (units per request, as recorded on the wire). */
export interface CostRow {
  name: string;
  /** The recorded request types it adds up, each with how many of it one unit of this row makes. */
  parts: { type: string; per?: number }[];
  /** What is assumed beyond the recorded units (the durations come from infra/durations.ts), in words. */
  assumptions: string;
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
  /** Storage: what expires, over its life; what is kept for good, for one month (with PITR). */
  storage: number;
  total: number;
}

const specsByFn = () => new Map(functionSpecs().map((s) => [s.fn, s]));

/** Log bytes per HTTP request: Lambda's START/END/REPORT JSON lines (~700 B) and the API's JSON access log (~450 B). */
const HTTP_LOG_BYTES = 1_150;
/** Log bytes per worker invocation: Lambda's START/END/REPORT lines. */
const INVOCATION_LOG_BYTES = 700;
/** Messages a queue worker's event source takes per receive and deletes per call under load (SQS's 10 at most). */
const POLLER_BATCH = 10;
const GB = 1e9;

/** Per-million cost of a row, by service, from the recorded units. */
export function perMillion(
  row: CostRow,
  units: RecordedUnits = recordedUnits(),
  specs: Map<string, FunctionSpec> = specsByFn(),
  architectures: Record<string, 'arm64' | 'x86_64'> = {},
): Breakdown {
  const b = { lambda: 0, apiGateway: 0, dynamodb: 0, sqs: 0, s3: 0, logs: 0, storage: 0 };
  for (const part of row.parts) {
    const t = unitsOf(units, part.type);
    const n = part.per ?? 1;
    for (const f of t.functions) {
      const spec = specs.get(f.fn);
      if (!spec) throw new Error(`No function ${f.fn} in shared/contract`);
      // A queue worker's duration is per full batch; an HTTP function's per request.
      const batch = spec.queueWorker?.batchSize ?? 1;
      const invocations = spec.queueWorker ? f.records / batch : f.invocations;
      const gbSeconds = (spec.memoryMb / 1024) * (durationOf(f.fn).ms / 1000);
      const arch = architectures[f.fn] ?? 'arm64';
      b.lambda += n * invocations * (gbSeconds * prices.lambdaGbSecond[arch] + prices.lambdaRequest);
      if (f.method) {
        b.apiGateway += n * f.invocations * prices.apiRestRequest;
        b.logs += (n * f.invocations * HTTP_LOG_BYTES * logPerByte()) / 1;
      } else b.logs += n * invocations * INVOCATION_LOG_BYTES * logPerByte();
    }
    for (const d of t.dynamo) {
      b.dynamodb += n * (d.wcu * prices.dynamoWriteUnit + d.rcu * prices.dynamoReadUnit);
      const storagePerGbMonth = prices.dynamoStorageGbMonth + (d.target === 'table' ? prices.dynamoPitrGbMonth : 0);
      b.storage += n * ((Math.max(0, d.storedBytes) + Math.max(0, d.expiringByteDays) / 30) / GB) * storagePerGbMonth;
    }
    for (const q of t.sqs) {
      const price =
        queueDefinitions[q.queue] && 'fifo' in queueDefinitions[q.queue] ? prices.sqsFifoRequest : prices.sqsRequest;
      b.sqs += n * (q.byPoller ? q.messages / POLLER_BATCH : q.requests) * price;
    }
    for (const o of t.s3) {
      b.s3 += n * o.requests * (o.op === 'PutObject' || o.op.startsWith('List') ? prices.s3Put : prices.s3Get);
      if (o.op === 'PutObject') b.storage += n * (o.bytes / GB) * prices.s3StorageGbMonth;
    }
  }
  const m = 1e6;
  const out = Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v * m])) as Omit<Breakdown, 'total'>;
  return { ...out, total: Object.values(out).reduce((a, v) => a + v, 0) };
}

const logPerByte = () => (prices.logsIngestGb + prices.logsStorageGbMonth) / GB;

export const costRows: CostRow[] = [
  { name: 'Bots API: health', parts: [{ type: 'health' }], assumptions: 'probes cached per instance' },
  { name: 'Bots API: search', parts: [{ type: 'search' }], assumptions: "the bot's index cached in the instance" },
  {
    name: 'Bots API: completion',
    parts: [{ type: 'completion' }],
    assumptions: 'the function waits ~2 s for the model',
    external: {
      label: 'Nova Lite tokens (1,500 in, 300 out)',
      usd: 1.5 * prices.novaLiteInputPer1k + 0.3 * prices.novaLiteOutputPer1k,
    },
  },
  {
    name: 'Bots API: chat completion',
    parts: [{ type: 'chat completion' }],
    assumptions: 'as completion, in the OpenAI wire format',
    external: {
      label: 'Nova Lite tokens (1,500 in, 300 out)',
      usd: 1.5 * prices.novaLiteInputPer1k + 0.3 * prices.novaLiteOutputPer1k,
    },
  },
  {
    name: 'Bots API: extract (text-layer PDF)',
    parts: [{ type: 'extract' }],
    assumptions: '1 s for ~5 pages on x86_64 (native canvas)',
    external: { label: 'Textract, only for scanned pages', usd: 0 },
  },
  {
    name: 'Send (`POST /api/integration/generic`)',
    parts: [{ type: 'send' }],
    assumptions: 'one provider call (~300 ms); its event counted in the fan-out row',
    external: { label: 'SES, if the channel sends through it', usd: prices.sesEmail },
  },
  {
    name: 'Status callback (Twilio)',
    parts: [{ type: 'status callback' }],
    assumptions: 'the callback accepted, then the inbound worker in batches of 10; its event in the fan-out row',
  },
  {
    name: 'Inbound message (Twilio SMS)',
    parts: [{ type: 'inbound message' }],
    assumptions: 'as a status callback',
  },
  {
    name: 'Inbound message (WhatsApp)',
    parts: [{ type: 'inbound WhatsApp message' }],
    assumptions: 'as a status callback',
  },
  { name: 'Reported event (`POST /events`)', parts: [{ type: 'reported event' }], assumptions: 'one enqueue' },
  {
    name: 'Event fanned out (per event)',
    parts: [{ type: 'event fan-out' }],
    assumptions: 'batches of 10 events',
  },
  {
    name: 'Webhook delivery (first attempt succeeds)',
    parts: [{ type: 'webhook delivery' }],
    assumptions: 'batches of 10 deliveries, ~400 ms each',
  },
  {
    name: 'Ordered webhook delivery',
    parts: [{ type: 'ordered webhook delivery' }],
    assumptions: 'as a delivery, on the FIFO queue',
  },
  {
    name: 'Batch item (`POST /api/integration/generic/batch`)',
    parts: [{ type: 'batch send', per: 1 / WORKLOAD_BATCH_ITEMS }],
    assumptions: `batches of ${WORKLOAD_BATCH_ITEMS}, sent by the outbound worker at the channel's pace; its event in the fan-out row`,
    external: { label: 'SES, if the channel sends through it', usd: prices.sesEmail },
  },
  {
    name: 'Scheduled send (`sendAt`)',
    parts: [{ type: 'scheduled send' }],
    assumptions: 'accepted with its due entry, queued delayed to its time, sent by the outbound worker',
  },
  {
    name: 'Poll (`GET /api/integration/events`)',
    parts: [{ type: 'events poll' }],
    assumptions: "a page of the project's events",
  },
  {
    name: 'Console page and portal page (one of each)',
    parts: [{ type: 'console page' }],
    assumptions: 'the pages only; what they call is the management API',
  },
  {
    name: "Delivery into a customer's SQS queue (destination)",
    parts: [{ type: 'destination delivery' }],
    assumptions: 'its event fanned out and delivered (a role assumed, then reused)',
  },
  {
    name: 'Knowledge file ingested (text, through the API)',
    parts: [{ type: 'knowledge file ingested' }],
    assumptions: 'one file per ingestion batch (the most per file); ~3 s per batch',
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
export function costTables(architectures: Record<string, 'arm64' | 'x86_64'>, units = recordedUnits()): string {
  const lines = [
    '| per million | Lambda | API Gateway | DynamoDB | SQS | S3 | logs | storage | **total (AWS infra)** | outside the stack |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of costRows) {
    const b = perMillion(row, units, undefined, architectures);
    const external = row.external
      ? `${row.external.label}: ${row.external.usd ? usd(row.external.usd * 1e6) : 'per page'}`
      : '';
    lines.push(
      `| ${row.name} | ${usd(b.lambda)} | ${usd(b.apiGateway)} | ${usd(b.dynamodb)} | ${usd(b.sqs)} | ${usd(b.s3)} | ${usd(b.logs)} | ${usd(b.storage)} | **${usd(b.total)}** | ${external} |`,
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

/** Each row's recorded units and assumptions, as the tables' footnotes. */
export function unitLines(units = recordedUnits()): string[] {
  return costRows.map((row) => {
    const sum = (f: (t: ReturnType<typeof unitsOf>) => number) =>
      row.parts.reduce((n, p) => n + (p.per ?? 1) * f(unitsOf(units, p.type)), 0);
    const wcu = sum((t) => t.dynamo.reduce((n, d) => n + d.wcu, 0));
    const rcu = sum((t) => t.dynamo.reduce((n, d) => n + d.rcu, 0));
    const sqs = sum((t) => t.sqs.reduce((n, q) => n + (q.byPoller ? q.messages / POLLER_BATCH : q.requests), 0));
    const s3 = sum((t) => t.s3.reduce((n, o) => n + o.requests, 0));
    const fns = [...new Set(row.parts.flatMap((p) => unitsOf(units, p.type).functions.map((f) => f.fn)))];
    const durations = fns.map((fn) => `${fn} ${durationOf(fn).ms} ms`).join(', ');
    return `- ${row.name}: ${num(wcu)} write and ${num(rcu)} read units, ${num(sqs)} SQS and ${num(s3)} S3 requests (recorded); ${durations}; ${row.assumptions}`;
  });
}

const num = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const bundles = buildFunctionsSync(functionSpecs().map((s) => s.fn));
  console.log(costTables(Object.fromEntries([...bundles].map(([fn, b]) => [fn, architectureFor(b.unbundled)]))));
  console.log('');
  for (const line of unitLines()) console.log(line);
}
