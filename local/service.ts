import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buckets } from '#shared/resources/buckets.ts';
import { queueUrlEnv, type QueueKey } from '#shared/resources/queues.ts';
import { fallbackFunction, routes } from '#shared/resources/routes.ts';
import { queueWorkers, scheduledWorkers } from '#shared/resources/workers.ts';
import { consoleRoutes } from './console.ts';
import { startEmulators, type Emulators } from './emulators.ts';
import { createGateway, type LocalRoute, type ProxyHandler } from './gateway.ts';
import { startPoller, type SqsHandler } from './poller.ts';
import { startSchedule, type ScheduledHandler } from './scheduler.ts';

export interface ServiceOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  /** Settings for the functions (the same variables a deployment sets), applied before they load. */
  env?: Record<string, string>;
  /** Log worker failures to stderr (on by default). */
  logWorkerErrors?: boolean;
}

export interface RunningService {
  baseUrl: string;
  adminKey: string;
  dataDir: string;
  emulators: Emulators;
  stop(): Promise<void>;
}

/**
 * The whole service in one process: stand-ins for DynamoDB, SQS and S3, the functions loaded from the same modules
 * that are deployed, the HTTP gateway in front of them, a poller per queue worker and a timer per scheduled worker.
 * The functions read their settings from process.env once per "cold start" (their first import), so one process
 * hosts one service.
 */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const dataDir = resolve(options.dataDir ?? process.env.DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  const emulators = await startEmulators(dataDir);
  const adminKey = options.env?.ADMIN_KEY ?? process.env.ADMIN_KEY ?? loadOrCreateSecret(dataDir, 'admin-key', () => `sba_${randomBytes(32).toString('base64url')}`);
  const secretsKey = options.env?.SECRETS_KEY ?? process.env.SECRETS_KEY ?? loadOrCreateSecret(dataDir, 'secrets-key', () => randomBytes(32).toString('base64'));

  // What the deployment sets for each function, pointed at the stand-ins; always ours.
  const wiring: Record<string, string> = {
    SWITCHBOARD_RUNTIME: 'local',
    AWS_REGION: emulators.region,
    TABLE_NAME: emulators.tableName,
    DYNAMODB_ENDPOINT: emulators.dynamoEndpoint,
    SQS_ENDPOINT: emulators.awsEndpoint,
    S3_ENDPOINT: emulators.awsEndpoint,
    ADMIN_KEY: adminKey,
    SECRETS_KEY: secretsKey,
    ...Object.fromEntries(Object.values(buckets).map((b) => [b.envVar, emulators.bucketNames[b.key]])),
    ...Object.fromEntries((Object.keys(emulators.queueUrls) as QueueKey[]).map((k) => [queueUrlEnv(k), emulators.queueUrls[k]])),
  };
  // Tunables (BOT_RATE_LIMIT_PER_MINUTE, MODEL_PROVIDER...) come from the caller's environment or `options.env`.
  Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN' }, wiring, options.env);

  const httpFns = new Set([...routes.map((r) => r.fn), fallbackFunction]);
  const handlers: Record<string, ProxyHandler> = {};
  await Promise.all([...httpFns].map(async (fn) => (handlers[fn] = (await loadFunction(fn)) as ProxyHandler)));

  const sqs = new SQSClient({ region: emulators.region, endpoint: emulators.awsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const logError = (fn: string) => (error: unknown) => {
    if (options.logWorkerErrors !== false) console.error(`[${fn}]`, error);
  };
  const pollers = await Promise.all(
    queueWorkers.map(async (worker) => {
      const queueUrl = emulators.queueUrls[worker.queue];
      const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
      const handler = (await loadFunction(worker.fn)) as SqsHandler;
      return startPoller({ sqs, queueUrl, queueArn: arn, region: emulators.region, worker, handler, onError: logError(worker.fn) });
    }),
  );
  const schedules = await Promise.all(
    scheduledWorkers.map(async (worker) => startSchedule(worker, (await loadFunction(worker.fn)) as ScheduledHandler, logError(worker.fn))),
  );

  let ready = false;
  const healthz: LocalRoute = (req, res, url) => {
    if (url.pathname !== '/healthz') return false;
    const body = JSON.stringify(ready ? { ok: true } : { ok: false });
    res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
  // The console, /openapi.json and /docs: static files and the document built from the loaded admin routes.
  const server = createGateway({ handlers, localRoutes: [healthz, ...consoleRoutes()] });
  server.listen(options.port ?? Number(process.env.PORT ?? 3000), options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  ready = true;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    adminKey,
    dataDir,
    emulators,
    async stop() {
      ready = false;
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await Promise.all([...pollers, ...schedules].map((p) => p.stop()));
      sqs.destroy();
      await emulators.stop();
    },
  };
}

async function loadFunction(fn: string): Promise<unknown> {
  const mod = (await import(new URL(`../functions/${fn}/handler.ts`, import.meta.url).href)) as { handler?: unknown };
  if (typeof mod.handler !== 'function') throw new Error(`functions/${fn}/handler.ts does not export a handler`);
  return mod.handler;
}

/** Local secrets (admin key, encryption key) survive restarts: generated once under DATA_DIR, owner-readable only. */
function loadOrCreateSecret(dataDir: string, name: string, generate: () => string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}
