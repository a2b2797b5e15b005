import { queues, type QueueKey } from '#shared/contract/queues.ts';
import type {
  FunctionUnits,
  GroupUnits,
  KeyClassUnits,
  QueueUnits,
  RequestTypeUnits,
  S3Units,
} from '#infra/recorded-units.ts';
import { dynamoLoads, emptyLoad, type PartitionLoad } from './dynamo-units.ts';
import { groupClass, keyClass, type KnownValues, shardOfKey } from './key-class.ts';
import { type DynamoCall, PROBE, type SdkCall, type WireCall } from './recorder.ts';
import type { TableSchema } from './template.ts';
import type { Phase, WorkloadRun } from './workload.ts';

/**
 * The recorded workload turned into units per request type: what one request (one event fanned out, one delivery)
 * costs on each key class of the table and its indexes, on each queue and FIFO message group, in S3 and in function
 * invocations. This is what the capacity model scales and what infra/cost.ts prices.
 */

/** Request types that are not the phase's own request but what it set off downstream, by the function doing it. */
const DOWNSTREAM: Record<string, { name: string; per: string; queue: QueueKey }> = {
  fanout: { name: 'event fan-out', per: 'event', queue: 'events' },
  deliver: { name: 'webhook delivery', per: 'delivery', queue: 'deliveries' },
  'deliver-ordered': { name: 'ordered webhook delivery', per: 'delivery', queue: 'deliveriesOrdered' },
};
/**
 * Timer-driven work counted as a request type of its own, per run: the due sweep's reads of the due partitions and
 * its cursor are service-wide by design (one sweeper for every tenant), so the model puts them in the scenarios at
 * its schedule rather than leaving them out as the other sweepers' are.
 */
export const SWEEPS: Record<string, { name: string; per: string }> = {
  'due-sweeper': { name: 'due sweep', per: 'run' },
};
const byQueue = new Map(Object.values(DOWNSTREAM).map((d) => [d.queue, d]));
const queueByName = new Map(Object.values(queues).map((q) => [q.localName, q.key as QueueKey]));

export const queueOf = (url: unknown): QueueKey | undefined =>
  queueByName.get(
    String(url ?? '')
      .split('/')
      .pop()!,
  );

/** The request type a call counts for: its phase's, or the downstream work its function (or queue) does. */
function requestTypeOf(call: WireCall, phase: Phase): string | undefined {
  // The workload's own checks, and the runner's own reads of its stand-in (a layer in front of dynalite), are nobody's.
  if (call.fn === PROBE || call.fn === 'client' || (call.fn === 'runner' && call.service === 'dynamodb'))
    return undefined;
  if (phase.ownsDownstream) return phase.requestType;
  const downstream = DOWNSTREAM[call.fn];
  if (downstream) return downstream.name;
  if (call.fn === 'runner' && call.service === 'sqs') {
    const queued = byQueue.get(queueOf(call.input.QueueUrl)!);
    if (queued) return queued.name;
  }
  return phase.requestType;
}

/** How many of each request type the phases made. */
function samplesOf(phases: Phase[]): Map<string, { samples: number; per: string; controlPlane: boolean }> {
  const out = new Map<string, { samples: number; per: string; controlPlane: boolean }>();
  const bump = (name: string, n: number, per: string, controlPlane = false) => {
    const entry = out.get(name) ?? { samples: 0, per, controlPlane };
    entry.samples += n;
    out.set(name, entry);
  };
  for (const p of phases) {
    bump(p.requestType, p.count, p.ownsDownstream ? 'delivery' : 'request', p.controlPlane);
    if (p.events) bump(DOWNSTREAM.fanout!.name, p.events, DOWNSTREAM.fanout!.per);
    if (p.deliveries.unordered) bump(DOWNSTREAM.deliver!.name, p.deliveries.unordered, 'delivery');
    if (p.deliveries.ordered) bump(DOWNSTREAM['deliver-ordered']!.name, p.deliveries.ordered, 'delivery');
  }
  return out;
}

/** The calls of each request type, from each project's phases. */
export function callsByRequestType(run: WorkloadRun, background: ReadonlySet<string>) {
  const phases = new Map(run.phases.map((p) => [p.name, p]));
  const out = new Map<string, { project: string; calls: WireCall[] }[]>();
  for (const call of run.recording.calls) {
    const sweep = SWEEPS[call.fn];
    if (background.has(call.fn) && !sweep) continue;
    const phase = phases.get(call.phase);
    if (!phase) continue;
    const type = sweep ? sweep.name : requestTypeOf(call, phase);
    if (!type) continue;
    const groups = out.get(type) ?? [];
    // A sweep's run is nobody's: the service's (the shared-keys check compares the projects' own requests).
    const project = sweep ? 'service' : phase.project;
    const group = groups.find((g) => g.project === project) ?? { project, calls: [] };
    if (!groups.includes(group)) groups.push(group);
    group.calls.push(call);
    out.set(type, groups);
  }
  return out;
}

export function requestTypeUnits(
  schema: TableSchema,
  run: WorkloadRun,
  background: ReadonlySet<string>,
): RequestTypeUnits[] {
  const samples = samplesOf(run.phases);
  const phaseNames = new Set(run.phases.map((p) => p.name));
  for (const [fn, sweep] of Object.entries(SWEEPS)) {
    const runs = run.recording.invocations.filter((i) => i.fn === fn && phaseNames.has(i.phase)).length;
    if (runs) samples.set(sweep.name, { samples: runs, per: sweep.per, controlPlane: false });
  }
  const byType = callsByRequestType(run, background);
  const out: RequestTypeUnits[] = [];
  for (const [name, { samples: n, per, controlPlane }] of samples) {
    const calls = (byType.get(name) ?? []).flatMap((g) => g.calls);
    const invocations = run.recording.invocations.filter((i) => {
      const phase = run.phases.find((p) => p.name === i.phase);
      if (!phase) return false;
      if (SWEEPS[i.fn]) return SWEEPS[i.fn]!.name === name;
      if (background.has(i.fn)) return false;
      return (phase.ownsDownstream ? phase.requestType : (DOWNSTREAM[i.fn]?.name ?? phase.requestType)) === name;
    });
    out.push({
      name,
      per,
      controlPlane,
      samples: n,
      dynamo: dynamoUnits(
        schema,
        calls.filter((c): c is DynamoCall => c.service === 'dynamodb'),
        run.known,
        n,
      ),
      ...sdkUnits(
        calls.filter((c): c is SdkCall => c.service !== 'dynamodb'),
        run.known,
        n,
      ),
      functions: functionUnits(invocations, n),
    });
  }
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function dynamoUnits(schema: TableSchema, calls: DynamoCall[], known: KnownValues, n: number): KeyClassUnits[] {
  const byClass = new Map<string, KeyClassUnits>();
  for (const [target, partitions] of dynamoLoads(schema, calls)) {
    for (const [partition, load] of partitions) {
      const cls = keyClass(partition, known);
      const key = `${target} ${cls}`;
      const entry = byClass.get(key) ?? { target, keyClass: cls, partitions: 0, ...emptyLoad() };
      for (const k of Object.keys(load) as (keyof PartitionLoad)[]) entry[k] += load[k];
      entry.partitions += 1;
      byClass.set(key, entry);
    }
  }
  return [...byClass.values()]
    .map((e) => {
      const scaled = { ...e } as KeyClassUnits;
      for (const k of [...(Object.keys(emptyLoad()) as (keyof PartitionLoad)[]), 'partitions'] as const)
        scaled[k] = round(e[k] / n);
      return scaled;
    })
    .sort((a, b) => a.target.localeCompare(b.target) || a.keyClass.localeCompare(b.keyClass));
}

const SQS_CHUNK = 64 * 1024;
const bytes = (s: unknown) => Buffer.byteLength(String(s ?? ''), 'utf8');

function sdkUnits(calls: SdkCall[], known: KnownValues, n: number) {
  const sqs = new Map<string, QueueUnits>();
  const fifo = new Map<string, GroupUnits>();
  const s3 = new Map<string, S3Units>();
  const groupOfReceipt = new Map<string, string>();
  for (const call of calls) {
    if (call.service === 's3') {
      const key = `${call.input.Bucket} ${call.op}`;
      const entry = s3.get(key) ?? { bucket: String(call.input.Bucket), op: call.op, requests: 0, bytes: 0 };
      entry.requests += 1;
      entry.bytes += call.op === 'PutObject' ? bodyBytes(call.input.Body) : Number(call.output?.ContentLength ?? 0);
      s3.set(key, entry);
      continue;
    }
    const queue = queueOf(call.input.QueueUrl);
    if (!queue) continue;
    const entries = (call.input.Entries as Record<string, unknown>[] | undefined) ?? [call.input];
    const received = (call.output?.Messages as { ReceiptHandle?: string; Attributes?: Record<string, string> }[]) ?? [];
    if (call.op === 'ReceiveMessage' && !received.length) continue; // an idle long poll
    const payload = entries.reduce((sum, e) => sum + bytes(e.MessageBody), 0);
    const messages = call.op === 'ReceiveMessage' ? received.length : call.op.endsWith('Batch') ? entries.length : 1;
    const byPoller = call.fn === 'runner';
    const key = `${queue} ${call.op}`;
    const entry = sqs.get(key) ?? { queue, op: call.op, requests: 0, messages: 0, byPoller };
    entry.requests += Math.max(1, Math.ceil(payload / SQS_CHUNK));
    entry.messages += messages;
    sqs.set(key, entry);
    // The FIFO groups this call touched: from its entries (send), what it received, or the receipts it deletes.
    const groups = new Set<string>();
    for (const e of entries) if (e.MessageGroupId) groups.add(String(e.MessageGroupId));
    for (const m of received) {
      const g = m.Attributes?.MessageGroupId;
      if (g) {
        groups.add(g);
        groupOfReceipt.set(m.ReceiptHandle!, g);
      }
    }
    for (const e of entries) {
      const g = groupOfReceipt.get(String(e.ReceiptHandle ?? ''));
      if (g) groups.add(g);
    }
    for (const g of groups) {
      const cls = groupClass(g, known);
      const gkey = `${queue} ${cls} ${byPoller}`;
      const gentry = fifo.get(gkey) ?? { queue, groupClass: cls, calls: 0, byPoller };
      gentry.calls += 1;
      fifo.set(gkey, gentry);
    }
  }
  const per = <T extends object>(m: Map<string, T>, fields: (keyof T)[]) =>
    [...m.values()].map((e) => {
      const out = { ...e };
      for (const f of fields) (out as Record<string, number>)[f as string] = round((e[f] as number) / n);
      return out;
    });
  return {
    sqs: per(sqs, ['requests', 'messages']),
    fifo: per(fifo, ['calls']),
    s3: per(s3, ['requests', 'bytes']),
  };
}

function bodyBytes(body: unknown): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.length;
  return 0;
}

function functionUnits(invocations: { fn: string; method?: string; records: number }[], n: number): FunctionUnits[] {
  const byFn = new Map<string, FunctionUnits>();
  for (const i of invocations) {
    const key = `${i.fn} ${i.method ?? ''}`;
    const entry = byFn.get(key) ?? { fn: i.fn, ...(i.method ? { method: i.method } : {}), invocations: 0, records: 0 };
    entry.invocations += 1;
    entry.records += i.records;
    byFn.set(key, entry);
  }
  return [...byFn.values()].map((e) => ({
    ...e,
    invocations: round(e.invocations / n),
    records: round(e.records / n),
  }));
}

/** `table`/index → partition keys a request type wrote, per project: where two tenants' writes meet. */
export function writtenKeysByProject(schema: TableSchema, run: WorkloadRun, background: ReadonlySet<string>) {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const [type, groups] of callsByRequestType(run, background)) {
    const byProject = new Map<string, Set<string>>();
    for (const { project, calls } of groups) {
      const keys = new Set<string>();
      const loads = dynamoLoads(
        schema,
        calls.filter((c): c is DynamoCall => c.service === 'dynamodb'),
      );
      for (const [target, partitions] of loads)
        for (const [partition, load] of partitions) if (load.writes > 0) keys.add(`${target} ${partition}`);
      byProject.set(project, keys);
    }
    out.set(type, byProject);
  }
  return out;
}

/**
 * How many shards each sharded key class has: the most distinct shard values of one class (other ids fixed) that
 * the whole recording touched, sweeps and listings included (they read every shard).
 */
export function shardCounts(schema: TableSchema, run: WorkloadRun): Record<string, number> {
  const families = new Map<string, { cls: string; shards: Set<string> }>();
  const calls = run.recording.calls.filter((c): c is DynamoCall => c.service === 'dynamodb');
  for (const [target, partitions] of dynamoLoads(schema, calls)) {
    for (const partition of partitions.keys()) {
      const cls = `${target} ${keyClass(partition, run.known)}`;
      const shard = shardOfKey(partition, cls.slice(target.length + 1));
      if (shard === undefined) continue;
      // The key without its shard: one tenant's (one webhook's) key, whose shards are counted together.
      const family = `${target} ${partition
        .split('#')
        .filter((seg) => seg !== shard)
        .join('#')}`;
      const entry = families.get(family) ?? { cls, shards: new Set<string>() };
      entry.shards.add(shard);
      families.set(family, entry);
    }
  }
  const out: Record<string, number> = {};
  for (const { cls, shards } of families.values()) out[cls] = Math.max(out[cls] ?? 0, shards.size);
  return out;
}
