import { type RecordedUnits, unitsOf } from '#infra/recorded-units.ts';
import { durationOf } from '#infra/durations.ts';
import { pascal } from '#infra/functions.ts';
import { routes } from '#shared/contract/routes.ts';
import { DUE_PARTITIONS, keys } from '#shared/contract/keys.ts';
import { ADMITS_PER_SHARD_PER_SECOND, shardCount } from '#shared/ratelimit/index.ts';
import { PER_ITEM, placeholdersOf } from './key-class.ts';
import type { MixEntry, Scenario, Spread } from '#infra/capacity-target.ts';
import type { DeploymentCaps } from './template.ts';

/**
 * A scenario's load on everything with a limit: each key class's partitions (table and indexes), each FIFO message
 * group, each function's concurrency, each API method, and the account-wide quotas.
 */

export const limits = {
  /** One partition of the table or of an index, per second (AWS documentation). */
  partitionWcu: 1_000,
  partitionRcu: 3_000,
  /** One FIFO message group in high-throughput mode, API calls per second. */
  fifoGroupCalls: 300,
  /** An SQS event source mapping's maximum concurrency (Lambda's ceiling for the setting). */
  eventSourceMaxConcurrency: 1_000,
  /** The share of a limit a scenario may use: the rest is headroom for bursts, retries and growth. */
  target: 0.5,
} as const;

/** Account-wide quotas (default: AWS's defaults for a new account; deployments raise them). */
export interface AccountQuotas {
  lambdaConcurrency: number;
  apiRequestsPerSecond: number;
}
export const defaultQuotas: AccountQuotas = { lambdaConcurrency: 1_000, apiRequestsPerSecond: 10_000 };

export type RowKind = 'partition' | 'fifo' | 'lambda' | 'api';

export interface LoadRow {
  kind: RowKind;
  /** `table PRJ#<project>`, `events <project>.<conversation>`, `deliver`, `POST /api/integration/generic`... */
  name: string;
  /** How many partitions (groups) the load divides over; 1 for a key all share. */
  partitions: number;
  load: number;
  limit: number;
  unit: string;
  share: number;
  /** What the figure is made of (write and read units of a partition; the cap a function's figure is held to). */
  detail: string;
  /**
   * A rate-limit bucket's partitions grow with its rate (one item per 250 admitted a second): the most load one of
   * them takes at any rate, in the row's unit. A row whose bound is within the target never binds a ceiling.
   */
  boundedAt?: number;
}

export interface ScenarioLoad {
  scenario: Scenario;
  rows: LoadRow[];
  /** Key classes with a partition per request (a message, an event): units of one request on its own partition. */
  perItem: { name: string; wcu: number; rcu: number }[];
}

const spreadOf = (scenario: Scenario, entry: MixEntry): Spread => ({ ...scenario.spread, ...entry.spread });

/**
 * How many partitions a class's load divides over: the most numerous of its ids (1: none, every tenant shares it),
 * times its shards. A key is sharded by something a writer knows (a conversation, an event, a project): its shards
 * spread a load only as far as the scenario's conversations (or projects) do, so one conversation alone is taken to
 * hit one shard.
 */
function partitionsOf(cls: string, spread: Spread, shards: number | undefined): number | 'per item' {
  if (isDuePartition(cls)) return DUE_PARTITIONS;
  const placeholders = placeholdersOf(cls).filter((p) => p !== 'shard');
  if (placeholders.some((p) => PER_ITEM.has(p))) return 'per item';
  const ids = Math.max(1, ...placeholders.map((p) => spread[p] ?? 1));
  const sharded = shards ? Math.min(shards, Math.max(spread.conversation ?? 1, spread.project ?? 1)) : 1;
  return ids * sharded;
}

/**
 * The scheduled sends' due entries (`DUE#<minute>#<shard>`): one minute's partitions take every send due in that
 * minute, whoever its tenant (a campaign's sends all due at 9:00 meet there). Their minute changes, but not for a
 * load that is all due at once: the model takes the worst case, every scheduled send due in one minute, on that
 * minute's shards and nothing else.
 */
const DUE_PREFIX = `${keys.due(0, 'msg', '').pk.split('#')[0]}#`;
export const isDuePartition = (cls: string) => cls.startsWith(DUE_PREFIX);

/** A rate-limit bucket's items (`RL#sends#<project>`, `RL#<token>`): spread over more items the higher its limit. */
const RATE_LIMIT_PREFIX = keys.rateLimit('').pk;
const isBucket = (target: string, cls: string) => target === 'table' && cls.startsWith(RATE_LIMIT_PREFIX);

/**
 * How many items a bucket taking `perSecond` requests is spread over. A bucket admits a scenario's rate only when
 * its limit is at least that rate (the operator raises a project's `sendsPerSecond` for it), and the limiter spreads
 * a limit over one item per 250 a second (shared/ratelimit/shards.ts): the model applies the same rule to the least
 * limit that admits the rate.
 */
const bucketShards = (perSecond: number) => shardCount({ limit: Math.max(perSecond, 1e-9), windowMs: 1_000 });

const routeOf = (method: string) => {
  const [verb, path] = method.split(' ');
  const route = routes.find((r) => r.path === path && (r.method === verb || r.method === 'ANY'));
  return route ? `${route.method} ${route.path}` : method;
};

export function scenarioLoad(
  units: RecordedUnits,
  scenario: Scenario,
  caps: DeploymentCaps,
  quotas: AccountQuotas = defaultQuotas,
): ScenarioLoad {
  const partitions = new Map<string, { partitions: number; wcu: number; rcu: number }>();
  const groups = new Map<string, { partitions: number; calls: number }>();
  const perItem = new Map<string, { wcu: number; rcu: number }>();
  const invocations = new Map<string, number>();
  const apiRps = new Map<string, number>();
  const batchOf = (fn: string) => caps.functions.find((f) => f.fn === fn)?.trigger?.batchSize ?? 1;
  const consumerOf = (queue: string) =>
    caps.functions.find((f) => f.trigger?.queue.startsWith(`${pascal(queue)}Queue`))?.fn;

  // Each bucket's requests per second per id (a project's sends), over the scenario's whole mix: its item count.
  const bucketRate = new Map<string, number>();
  for (const entry of scenario.mix)
    for (const k of unitsOf(units, entry.type).dynamo) {
      if (!isBucket(k.target, k.keyClass)) continue;
      const ids = partitionsOf(k.keyClass, spreadOf(scenario, entry), undefined);
      if (ids === 'per item') continue;
      const name = `${k.target} ${k.keyClass}`;
      bucketRate.set(name, (bucketRate.get(name) ?? 0) + entry.perSecond / ids);
    }
  const bucketWcu = new Map<string, number>();

  for (const entry of scenario.mix) {
    const type = unitsOf(units, entry.type);
    const spread = spreadOf(scenario, entry);
    for (const k of type.dynamo) {
      const name = `${k.target} ${k.keyClass}`;
      const rate = bucketRate.get(name);
      const ids = partitionsOf(k.keyClass, spread, units.shards?.[name]);
      const n = rate === undefined || ids === 'per item' ? ids : ids * bucketShards(rate);
      if (rate !== undefined) bucketWcu.set(name, Math.max(bucketWcu.get(name) ?? 0, k.wcu));
      if (n === 'per item') {
        const item = perItem.get(name) ?? { wcu: 0, rcu: 0 };
        item.wcu = Math.max(item.wcu, k.wcu / Math.max(1, k.partitions));
        item.rcu = Math.max(item.rcu, k.rcu / Math.max(1, k.partitions));
        perItem.set(name, item);
        continue;
      }
      const row = partitions.get(name) ?? { partitions: n, wcu: 0, rcu: 0 };
      row.partitions = Math.max(row.partitions, n);
      row.wcu += (entry.perSecond * k.wcu) / n;
      row.rcu += (entry.perSecond * k.rcu) / n;
      partitions.set(name, row);
    }
    for (const g of type.fifo) {
      const n = partitionsOf(g.groupClass, spread, undefined);
      if (n === 'per item') continue;
      // The event source mapping receives and deletes a group's messages in batches under load.
      const consumer = consumerOf(g.queue);
      const perCall = g.byPoller ? 1 / Math.min(10, consumer ? batchOf(consumer) : 1) : 1;
      const name = `${g.queue} ${g.groupClass}`;
      const row = groups.get(name) ?? { partitions: n, calls: 0 };
      row.calls += (entry.perSecond * g.calls * perCall) / n;
      groups.set(name, row);
    }
    for (const f of type.functions) {
      const batch = batchOf(f.fn);
      const perSecond = batch > 1 ? (entry.perSecond * f.records) / batch : entry.perSecond * f.invocations;
      invocations.set(f.fn, (invocations.get(f.fn) ?? 0) + perSecond);
      if (f.method)
        apiRps.set(routeOf(f.method), (apiRps.get(routeOf(f.method)) ?? 0) + entry.perSecond * f.invocations);
    }
  }

  const rows: LoadRow[] = [];
  for (const [name, p] of partitions) {
    const share = Math.max(p.wcu / limits.partitionWcu, p.rcu / limits.partitionRcu);
    const writeBound = p.wcu / limits.partitionWcu >= p.rcu / limits.partitionRcu;
    const perAdmit = bucketWcu.get(name);
    rows.push({
      ...(perAdmit !== undefined && writeBound ? { boundedAt: perAdmit * ADMITS_PER_SHARD_PER_SECOND } : {}),
      kind: 'partition',
      name,
      partitions: p.partitions,
      load: writeBound ? p.wcu : p.rcu,
      limit: writeBound ? limits.partitionWcu : limits.partitionRcu,
      unit: writeBound ? 'WCU/s' : 'RCU/s',
      share,
      detail:
        `${fmt(p.wcu)} WCU/s, ${fmt(p.rcu)} RCU/s per partition` +
        (perAdmit !== undefined ? `; a bucket of ${fmt(bucketRate.get(name)!)}/s, an item per 250/s` : ''),
    });
  }
  for (const [name, g] of groups)
    rows.push({
      kind: 'fifo',
      name,
      partitions: g.partitions,
      load: g.calls,
      limit: limits.fifoGroupCalls,
      unit: 'calls/s',
      share: g.calls / limits.fifoGroupCalls,
      detail: 'per message group',
    });
  let concurrency = 0;
  for (const [fn, perSecond] of invocations) {
    const needed = (perSecond * durationOf(fn).ms) / 1000;
    concurrency += needed;
    const cap = caps.functions.find((f) => f.fn === fn);
    const limit = cap?.trigger?.maxConcurrency ?? cap?.reserved ?? quotas.lambdaConcurrency;
    const what = cap?.trigger?.maxConcurrency
      ? 'event source maximum concurrency'
      : cap?.reserved
        ? 'reserved concurrency'
        : 'account concurrency';
    rows.push({
      kind: 'lambda',
      name: fn,
      partitions: 1,
      load: needed,
      limit,
      unit: 'concurrent',
      share: needed / limit,
      detail: `${fmt(perSecond)} invocations/s × ${durationOf(fn).ms} ms; cap: ${what}`,
    });
  }
  rows.push({
    kind: 'lambda',
    name: 'account (all functions)',
    partitions: 1,
    load: concurrency,
    limit: quotas.lambdaConcurrency,
    unit: 'concurrent',
    share: concurrency / quotas.lambdaConcurrency,
    detail: 'the Regional concurrency quota',
  });
  let api = 0;
  for (const [method, rps] of apiRps) {
    api += rps;
    const throttle =
      caps.apiThrottles.find((t) => t.method === method) ?? caps.apiThrottles.find((t) => t.method === '*');
    const limit = throttle?.rate ?? quotas.apiRequestsPerSecond;
    rows.push({
      kind: 'api',
      name: method,
      partitions: 1,
      load: rps,
      limit,
      unit: 'req/s',
      share: rps / limit,
      detail: throttle?.method === method ? 'its method throttle' : "the stage's default method throttle",
    });
  }
  rows.push({
    kind: 'api',
    name: 'account (all APIs)',
    partitions: 1,
    load: api,
    limit: quotas.apiRequestsPerSecond,
    unit: 'req/s',
    share: api / quotas.apiRequestsPerSecond,
    detail: "API Gateway's Regional request quota",
  });
  rows.sort((a, b) => b.share - a.share);
  return {
    scenario,
    rows,
    perItem: [...perItem].map(([name, u]) => ({ name, ...u })).sort((a, b) => b.wcu - a.wcu),
  };
}

/**
 * The highest rate of the scenario's unit (its mix at 1/s) that keeps every partition and message group within the
 * target share of its limit, and the key that binds it. Settings (concurrency, throttles) are not ceilings: they are
 * sized from these.
 */
export function ceilingOf(units: RecordedUnits, unitScenario: Scenario, caps: DeploymentCaps) {
  const load = scenarioLoad(units, unitScenario, caps);
  const physical = load.rows.filter((r) => r.kind === 'partition' || r.kind === 'fifo');
  let best = { rate: Number.POSITIVE_INFINITY, binding: undefined as LoadRow | undefined };
  for (const row of physical) {
    // A bucket adds items as its limit grows: at most `boundedAt` on any of them, whatever the rate.
    if (row.boundedAt !== undefined && row.boundedAt <= limits.target * row.limit) continue;
    const rate = (limits.target * row.limit) / row.load;
    if (row.load > 0 && rate < best.rate) best = { rate, binding: row };
  }
  return best;
}

export const fmt = (n: number) =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n >= 0.01 ? n.toFixed(2) : n.toFixed(3);
