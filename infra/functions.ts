import type { BucketAccess, FunctionAccess, SecretKey } from '#shared/contract/access.ts';
import type { BucketKey } from '#shared/contract/buckets.ts';
import type { QueueKey } from '#shared/contract/queues.ts';
import { fallbackFunction, routes, type RouteDefinition } from '#shared/contract/routes.ts';
import type { GsiName } from '#shared/contract/table.ts';
import {
  queueWorkers,
  scheduledWorkers,
  type QueueWorkerDefinition,
  type ScheduledWorkerDefinition,
} from '#shared/contract/workers.ts';

/** The shared resource definitions the stack is generated from (injectable so tests can add a route). */
export interface ResourceDefinitions {
  routes: readonly RouteDefinition[];
  fallbackFunction: string;
  queueWorkers: readonly QueueWorkerDefinition[];
  scheduledWorkers: readonly ScheduledWorkerDefinition[];
}

export const sharedDefinitions: ResourceDefinitions = { routes, fallbackFunction, queueWorkers, scheduledWorkers };

/** One Lambda function, with everything the definitions say about it merged. */
export interface FunctionSpec {
  /** Folder under functions/. */
  fn: string;
  /** The largest timeout any of its definitions asks for. */
  timeoutSeconds: number;
  memoryMb: number;
  /** Union of the access its definitions declare. */
  access: FunctionAccess;
  /** False when no definition declares access (the infra tests refuse that, except for the fallback). */
  accessDeclared: boolean;
  routes: RouteDefinition[];
  queueWorker?: QueueWorkerDefinition;
  scheduledWorker?: ScheduledWorkerDefinition;
  isFallback: boolean;
  /** Reads scanned pages (declares Textract): gets the deployment's OCR engine. */
  ocr: boolean;
}

/** The fallback only answers 404/405 from the route table: it touches nothing. */
const FALLBACK_SETTINGS = { timeoutSeconds: 5, memoryMb: 256 };

/**
 * Every function the definitions name, once each, in a stable order: routes first (table order), then the
 * fallback, queue workers and scheduled workers.
 */
export function functionSpecs(defs: ResourceDefinitions = sharedDefinitions): FunctionSpec[] {
  const byFn = new Map<string, FunctionSpec>();
  const spec = (
    fn: string,
    settings: { timeoutSeconds: number; memoryMb: number },
    access: FunctionAccess | undefined,
  ) => {
    let s = byFn.get(fn);
    if (!s) {
      s = {
        fn,
        timeoutSeconds: settings.timeoutSeconds,
        memoryMb: settings.memoryMb,
        access: {},
        accessDeclared: false,
        routes: [],
        isFallback: false,
        ocr: false,
      };
      byFn.set(fn, s);
    }
    s.timeoutSeconds = Math.max(s.timeoutSeconds, settings.timeoutSeconds);
    s.memoryMb = Math.max(s.memoryMb, settings.memoryMb);
    if (access) {
      s.access = mergeAccess(s.access, access);
      s.accessDeclared = true;
    }
    return s;
  };
  for (const route of defs.routes) spec(route.fn, route, route.access).routes.push(route);
  spec(defs.fallbackFunction, FALLBACK_SETTINGS, {}).isFallback = true;
  for (const worker of defs.queueWorkers) spec(worker.fn, worker, worker.access).queueWorker = worker;
  for (const worker of defs.scheduledWorkers) spec(worker.fn, worker, worker.access).scheduledWorker = worker;
  for (const s of byFn.values()) s.ocr = Boolean(s.access.textract);
  return [...byFn.values()];
}

/**
 * The specs as one deployment runs them: with `ocrEngine: 'tesseract'` the OCR runs inside the function, so no
 * function calls Textract and none is granted it.
 */
export function specsForDeployment(specs: FunctionSpec[], settings: { ocrEngine: 'textract' | 'tesseract' }) {
  if (settings.ocrEngine === 'textract') return specs;
  return specs.map((s) => {
    if (!s.access.textract) return s;
    const { textract: _local, ...access } = s.access;
    return { ...s, access };
  });
}

/**
 * A route that holds its instance for a minute or more (completion waits for the model, extract OCRs a scan): its
 * concurrency is reserved, so one tenant's burst there cannot take the account's concurrency from the other
 * functions (and from the other routes' own bursts).
 */
export function isLongRoute(spec: FunctionSpec): boolean {
  return spec.routes.length > 0 && spec.timeoutSeconds >= 60;
}

const union = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined): T[] | undefined =>
  a || b ? [...new Set([...(a ?? []), ...(b ?? [])])] : undefined;

/** The union of two declarations: whatever either grants. */
export function mergeAccess(a: FunctionAccess, b: FunctionAccess): FunctionAccess {
  const out: FunctionAccess = {};
  if (a.table || b.table) {
    out.table = {
      read: Boolean(a.table?.read || b.table?.read),
      write: Boolean(a.table?.write || b.table?.write),
      indexes: union<GsiName>(a.table?.indexes, b.table?.indexes) ?? [],
    };
  }
  const sendTo = union<QueueKey>(a.sendTo, b.sendTo);
  if (sendTo) out.sendTo = sendTo;
  if (a.buckets || b.buckets) {
    const buckets: Partial<Record<BucketKey, BucketAccess>> = {};
    for (const key of new Set([...Object.keys(a.buckets ?? {}), ...Object.keys(b.buckets ?? {})]) as Set<BucketKey>) {
      const x = a.buckets?.[key] ?? {};
      const y = b.buckets?.[key] ?? {};
      const merged: BucketAccess = {};
      for (const action of ['read', 'write', 'delete'] as const) {
        const prefixes = union(x[action], y[action]);
        if (prefixes) merged[action] = prefixes;
      }
      if (x.list || y.list) merged.list = true;
      buckets[key] = merged;
    }
    out.buckets = buckets;
  }
  if (a.bedrock || b.bedrock) {
    out.bedrock = {
      invoke: Boolean(a.bedrock?.invoke || b.bedrock?.invoke),
      countTokens: Boolean(a.bedrock?.countTokens || b.bedrock?.countTokens),
    };
  }
  if (a.textract || b.textract) out.textract = true;
  if (a.ses?.send || b.ses?.send) out.ses = { send: true };
  if (a.assumeCustomerRoles || b.assumeCustomerRoles) out.assumeCustomerRoles = true;
  const secretKeys = union<SecretKey>(a.secrets, b.secrets);
  if (secretKeys) out.secrets = secretKeys;
  return out;
}

/** `legacy-send` → `LegacySend`: construct ids. */
export function pascal(fn: string): string {
  return fn
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
