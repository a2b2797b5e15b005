import { type QueueDefinition, queues } from '#shared/contract/queues.ts';
import { routes } from '#shared/contract/routes.ts';
import { queueWorkers } from '#shared/contract/workers.ts';
import { type Scenario, scenarios } from './capacity-target.ts';
import { durationOf } from './durations.ts';
import { functionSpecs, isLongRoute } from './functions.ts';
import { type RecordedUnits, recordedUnits, unitsOf } from './recorded-units.ts';

/**
 * The deployment's concurrency and throttles, derived for a stated target (./capacity-target.ts: S1-S4) from the
 * recorded units (./recorded-units.json) and the assumed durations (./durations.ts): each figure is what the most
 * demanding scenario needs, doubled so it runs at half its limit, then fitted into the account's quotas.
 *
 * - Queue workers: the event source's maximum concurrency (fan-out, deliver, inbound, ingest).
 * - Reserved concurrency (its own pool, and its cap): the long routes, so a burst of slow model calls cannot take
 *   the account from the rest; and the provider callbacks (Twilio, WhatsApp), so no tenant's burst leaves a
 *   provider's report without an instance (Twilio does not retry a status callback it got an error for).
 * - API Gateway: each route's own method throttle; the provider callbacks' are theirs alone, sized first; the
 *   catch-all methods (404/405 only) take the stage default. All of them together stay within the account's request
 *   quota, so no tenant's traffic can spend what the callbacks need.
 */

/** The share of a limit the target may use: the other half is headroom for bursts, retries and growth. */
export const TARGET_SHARE = 0.5;
/** Reservations may take at most this share of the account's concurrency (AWS keeps 100 unreserved besides). */
export const RESERVED_SHARE = 0.5;
/** Queue workers' maximum concurrencies may add up to at most this share of the account's concurrency. */
export const WORKER_SHARE = 0.4;
/** A long route the target puts no load on still reserves this much (its own pool, as every long route). */
export const LONG_ROUTE_FLOOR = 10;
/** Lambda's bounds on an SQS event source's maximum concurrency. */
export const EVENT_SOURCE_CONCURRENCY = { min: 2, max: 1_000 } as const;
/**
 * A batch larger than the 10 messages one SQS receive hands over needs a batching window (Lambda's rule): a batch
 * grows only when the target needs more concurrent batches than an event source takes, and then waits at most this
 * long to fill (at such rates it fills within milliseconds; a quiet deployment never grows it).
 */
export const GROWN_BATCH_WINDOW_SECONDS = 1;
/** The stage's default method throttle: only the catch-all methods, which answer 404/405, use it. */
export const CATCH_ALL_THROTTLE = { rate: 10, burst: 20 } as const;

export interface PlanSettings {
  /** The account's Regional Lambda concurrency quota (AWS's default: 1,000). */
  lambdaConcurrencyQuota: number;
  /** The account's Regional API Gateway request quota, per second (AWS's default: 10,000). */
  apiRequestQuota: number;
  /** A route method the target puts no load on (the management API, message status...): its throttle. */
  throttleRateLimit: number;
  throttleBurstLimit: number;
  /** Overrides the plan for the long routes: each reserves exactly this (0: none). */
  longRouteReservedConcurrency?: number;
}

export interface Demand {
  /** Function → invocations per second and the concurrency they need. */
  invocations: Map<string, number>;
  concurrency: Map<string, number>;
  /** `POST /api/integration/generic` → requests per second. */
  api: Map<string, number>;
}

/** The API method a recorded invocation came through, as the route table declares it (`ANY` for the management API). */
export function routeMethod(method: string): string {
  const [verb, path] = method.split(' ');
  const route = routes.find((r) => r.path === path && (r.method === verb || r.method === 'ANY'));
  return route ? `${route.method} ${route.path}` : method;
}

const contractBatch = (fn: string) => queueWorkers.find((w) => w.fn === fn)?.batchSize ?? 1;

/** What a scenario asks of each function and API method; a queue worker's invocations are full batches. */
export function scenarioDemand(units: RecordedUnits, scenario: Scenario, batchOf = contractBatch): Demand {
  const invocations = new Map<string, number>();
  const api = new Map<string, number>();
  for (const entry of scenario.mix) {
    for (const f of unitsOf(units, entry.type).functions) {
      const batch = batchOf(f.fn);
      const perSecond = batch > 1 ? (entry.perSecond * f.records) / batch : entry.perSecond * f.invocations;
      invocations.set(f.fn, (invocations.get(f.fn) ?? 0) + perSecond);
      if (f.method) {
        const method = routeMethod(f.method);
        api.set(method, (api.get(method) ?? 0) + entry.perSecond * f.invocations);
      }
    }
  }
  const concurrency = new Map([...invocations].map(([fn, n]) => [fn, (n * durationOf(fn).ms) / 1000]));
  return { invocations, concurrency, api };
}

/**
 * Shares a budget among needs, smallest first: each gets what it needs or an equal share of what is left, whichever
 * is less (so a small need is met whole and the large ones split the rest).
 */
export function waterFill(needs: Record<string, number>, budget: number): Record<string, number> {
  const out: Record<string, number> = {};
  let left = Math.max(0, budget);
  const sorted = Object.entries(needs).sort((a, b) => a[1] - b[1]);
  sorted.forEach(([name, need], i) => {
    out[name] = Math.floor(Math.min(need, left / (sorted.length - i)));
    left -= out[name]!;
  });
  return out;
}

export interface PlanRow {
  setting: string;
  /** What the target needs at most, and which scenario. */
  need: number;
  neededBy: string;
  /** Twice the need (half the limit). */
  planned: number;
  /** What the deployment gets, within the account's quotas. */
  value: number;
  unit: string;
  why: string;
}

export interface CapacityPlan {
  target: string[];
  /** Queue worker → its event source's maximum concurrency. */
  workerConcurrency: Record<string, number>;
  /** Queue worker → its event source's batch (the contract's, unless the target needs a larger one). */
  workerBatching: Record<string, { batchSize: number; windowSeconds: number }>;
  /** Function → reserved concurrency. */
  reservedConcurrency: Record<string, number>;
  /** `POST /api/integration/generic` → its method throttle. */
  methodThrottles: Record<string, { rate: number; burst: number }>;
  /** What the target needs of the account: concurrency (the most demanding scenario) and API requests per second. */
  quotasNeeded: { lambdaConcurrency: number; apiRequestsPerSecond: number };
  rows: PlanRow[];
}

/** The most any target scenario needs of each key, and which scenario needs it. */
function peaks(demands: { id: string; values: Map<string, number> }[]) {
  const out = new Map<string, { need: number; by: string }>();
  for (const { id, values } of demands)
    for (const [key, v] of values) if (v > (out.get(key)?.need ?? 0)) out.set(key, { need: v, by: id });
  return out;
}

const planned = (need: number) => Math.ceil(need / TARGET_SHARE);
const isProviderCallback = (path: string) => path.startsWith('/inbound/');

export function capacityPlan(
  settings: PlanSettings,
  units: RecordedUnits = recordedUnits(),
  target: Scenario[] = scenarios,
): CapacityPlan {
  const demands = target.map((s) => ({ id: s.id, demand: scenarioDemand(units, s) }));
  const concurrency = peaks(demands.map((d) => ({ id: d.id, values: d.demand.concurrency })));
  const rps = peaks(demands.map((d) => ({ id: d.id, values: d.demand.api })));
  const rows: PlanRow[] = [];
  const specs = functionSpecs();
  const need = (fn: string) => concurrency.get(fn) ?? { need: 0, by: '-' };

  // Queue workers: the event source's batch, then its maximum concurrency, within Lambda's bounds and the workers'
  // share. A standard queue's worker whose planned concurrency at the contract's batch exceeds what one event source
  // takes gets batches that many times larger: a batch's attempts run in parallel, so it takes about as long (the
  // slowest of them) and the same load needs proportionally fewer of them. A FIFO queue's batch stays at 10.
  const workerBatching: CapacityPlan['workerBatching'] = {};
  const workerNeed: Record<string, number> = {};
  for (const w of queueWorkers) {
    const atContract = need(w.fn).need;
    const fifo = (queues[w.queue] as QueueDefinition).fifo === true;
    const factor = fifo ? 1 : Math.max(1, Math.ceil(planned(atContract) / EVENT_SOURCE_CONCURRENCY.max));
    workerBatching[w.fn] = {
      batchSize: w.batchSize * factor,
      windowSeconds: factor > 1 ? Math.max(w.batchWindowSeconds, GROWN_BATCH_WINDOW_SECONDS) : w.batchWindowSeconds,
    };
    workerNeed[w.fn] = atContract / factor;
  }
  const workerNeeds = Object.fromEntries(
    queueWorkers.map((w) => [
      w.fn,
      Math.min(EVENT_SOURCE_CONCURRENCY.max, Math.max(EVENT_SOURCE_CONCURRENCY.min, planned(workerNeed[w.fn]!))),
    ]),
  );
  const workerConcurrency = waterFill(workerNeeds, settings.lambdaConcurrencyQuota * WORKER_SHARE);
  for (const w of queueWorkers) {
    workerConcurrency[w.fn] = Math.max(EVENT_SOURCE_CONCURRENCY.min, workerConcurrency[w.fn]!);
    const batch = workerBatching[w.fn]!;
    const grown =
      batch.batchSize > w.batchSize
        ? ` (at ${w.batchSize} the target needs ${Math.round(need(w.fn).need)} of an event source's ${EVENT_SOURCE_CONCURRENCY.max}; a ${batch.windowSeconds} s window)`
        : '';
    rows.push({
      setting: `${w.fn}: event source maximum concurrency`,
      need: workerNeed[w.fn]!,
      neededBy: need(w.fn).by,
      // An event source takes at least 2 (a lane without load in the target, such as SES's mail, keeps that).
      planned: Math.max(EVENT_SOURCE_CONCURRENCY.min, planned(workerNeed[w.fn]!)),
      value: workerConcurrency[w.fn]!,
      unit: 'concurrent',
      why: `batches of ${batch.batchSize}${grown}, ${durationOf(w.fn).ms} ms each (${durationOf(w.fn).why})`,
    });
  }

  // Reservations: the long routes and the provider callbacks, each its own pool.
  const reserving = specs.filter((s) => isLongRoute(s) || s.routes.some((r) => isProviderCallback(r.path)));
  const reservedNeeds = Object.fromEntries(
    reserving
      .filter((s) => !(isLongRoute(s) && settings.longRouteReservedConcurrency !== undefined))
      .map((s) => [s.fn, Math.max(isLongRoute(s) ? LONG_ROUTE_FLOOR : 1, planned(need(s.fn).need))]),
  );
  const pinned = settings.longRouteReservedConcurrency;
  const fixed = pinned === undefined ? 0 : reserving.filter(isLongRoute).length * pinned;
  const reservable = Math.min(settings.lambdaConcurrencyQuota * RESERVED_SHARE, settings.lambdaConcurrencyQuota - 100);
  const reservedConcurrency = waterFill(reservedNeeds, reservable - fixed);
  for (const s of reserving) {
    if (isLongRoute(s) && settings.longRouteReservedConcurrency !== undefined)
      reservedConcurrency[s.fn] = settings.longRouteReservedConcurrency;
    rows.push({
      setting: `${s.fn}: reserved concurrency`,
      need: need(s.fn).need,
      neededBy: need(s.fn).by,
      planned: reservedNeeds[s.fn] ?? settings.longRouteReservedConcurrency ?? 0,
      value: reservedConcurrency[s.fn]!,
      unit: 'concurrent',
      why: `${durationOf(s.fn).ms} ms per request (${durationOf(s.fn).why}); ${isLongRoute(s) ? 'a long route' : 'a provider callback'}`,
    });
  }

  // API Gateway: every route method its own throttle; the provider callbacks first, within half the quota.
  const methods = routes.map((r) => `${r.method} ${r.path}`);
  const catchAlls = catchAllMethodCount();
  const untargeted = methods.filter((m) => !rps.has(m));
  const fixedRps = untargeted.length * settings.throttleRateLimit + catchAlls * CATCH_ALL_THROTTLE.rate;
  const providerNeeds = Object.fromEntries(
    methods
      .filter((m) => rps.has(m) && isProviderCallback(m.split(' ')[1]!))
      .map((m) => [m, planned(rps.get(m)!.need)]),
  );
  // A tenant route's throttle never drops below the deployment's default.
  const tenantNeeds = Object.fromEntries(
    methods
      .filter((m) => rps.has(m) && !isProviderCallback(m.split(' ')[1]!))
      .map((m) => [m, Math.max(settings.throttleRateLimit, planned(rps.get(m)!.need))]),
  );
  const budget = settings.apiRequestQuota - fixedRps;
  // The callbacks may take half of the quota, their methods without load in the target (WhatsApp's verification) included.
  const idleCallbacks = untargeted.filter((m) => isProviderCallback(m.split(' ')[1]!)).length;
  const providerRates = waterFill(
    providerNeeds,
    Math.min(budget, settings.apiRequestQuota / 2 - idleCallbacks * settings.throttleRateLimit),
  );
  const providerUsed = Object.values(providerRates).reduce((a, b) => a + b, 0);
  const tenantRates = waterFill(tenantNeeds, budget - providerUsed);
  const methodThrottles: CapacityPlan['methodThrottles'] = {};
  for (const m of methods) {
    const rate = providerRates[m] ?? tenantRates[m] ?? settings.throttleRateLimit;
    const throttled = Math.max(1, rate);
    methodThrottles[m] = {
      rate: throttled,
      burst: rps.has(m) ? 2 * throttled : Math.max(throttled, settings.throttleBurstLimit),
    };
    rows.push({
      setting: `${m}: method throttle`,
      need: rps.get(m)?.need ?? 0,
      neededBy: rps.get(m)?.by ?? '-',
      planned: providerNeeds[m] ?? tenantNeeds[m] ?? settings.throttleRateLimit,
      value: throttled,
      unit: 'req/s',
      why: isProviderCallback(m.split(' ')[1]!)
        ? 'a provider callback: its own throttle, sized first'
        : rps.has(m)
          ? 'a tenant route'
          : 'no load in the target: the deployment default (throttleRateLimit)',
    });
  }

  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  const peakConcurrency = Math.max(
    ...demands.map((d) => [...d.demand.concurrency.values()].reduce((a, b) => a + b, 0)),
  );
  // The account must hold the busiest scenario at half its quota, the planned reservations within their share, and
  // the workers' planned maxima within theirs.
  const lambdaNeeded = Math.max(
    planned(peakConcurrency),
    sum(reservedNeeds) / RESERVED_SHARE,
    sum(workerNeeds) / WORKER_SHARE,
  );
  return {
    target: target.map((s) => s.id),
    workerConcurrency,
    workerBatching,
    reservedConcurrency,
    methodThrottles,
    quotasNeeded: {
      lambdaConcurrency: Math.ceil(lambdaNeeded / 100) * 100,
      // The callbacks may take half of it; every method's throttle together fits in it.
      apiRequestsPerSecond:
        Math.ceil(
          Math.max(
            2 * (sum(providerNeeds) + idleCallbacks * settings.throttleRateLimit),
            sum(providerNeeds) + sum(tenantNeeds) + fixedRps,
          ) / 1000,
        ) * 1000,
    },
    rows,
  };
}

/**
 * The catch-all methods the API adds (infra/api.ts): `ANY` on every resource of the route tree without one of its
 * own, and the greedy `/{proxy+}`.
 */
export function catchAllMethodCount(): number {
  const resources = new Set<string>(['/']);
  for (const r of routes) {
    const parts = r.path.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) resources.add(`/${parts.slice(0, i).join('/')}`);
  }
  const withAny = new Set(routes.filter((r) => r.method === 'ANY').map((r) => r.path));
  const greedyRoot = routes.some((r) => r.path === '/{proxy+}');
  return [...resources].filter((p) => !withAny.has(p)).length + (greedyRoot ? 0 : 1);
}
