import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fallbackFunction, routes } from '#shared/contract/routes.ts';
import type { BundlesMode } from './bundles/bundles-mode.ts';
import { standInOfFailure, standInPortSetting } from './aws/stand-ins.ts';
import {
  localAws,
  startEmulators,
  startFauxqsWithQueuesAndBuckets,
  type Emulators,
  type QueuesAndBuckets,
  type StandInSettings,
} from './emulators.ts';
import { functionWiring } from './function-wiring.ts';
import { claimDataDir, listenFailure } from './startup-errors.ts';
import { startThread } from './threads.ts';
import type { HttpServerOptions, RunningHttpServer } from './http-server.ts';
import type { WorkersOptions } from './workers.ts';

export interface ServiceOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  /** Settings for the functions (the same variables a deployment sets), applied before they load. */
  env?: Record<string, string>;
  /** Log worker failures to stderr (on by default). */
  logWorkerErrors?: boolean;
  /**
   * Run the gateway with the HTTP functions, the queue and scheduled workers, and the SQS + S3 stand-in each on a
   * thread of their own (the default), or everything on the main thread with dynalite (`false`, or `LOCAL_THREADS=0`:
   * one event loop, easier to step through in a debugger).
   */
  threads?: boolean;
  /** The queue workers to run (all by default): a benchmark's diagnostic may leave one out. */
  queueWorkerFns?: string[];
  /**
   * Port of the inbound-mail SMTP listener on 127.0.0.1 (0 = a free one, the default; `npm start` passes
   * SMTP_INBOUND_PORT, default 2525).
   */
  smtpInboundPort?: number;
  /**
   * `sources` (default): the functions' TypeScript modules; `bundles` (or `LOCAL_FUNCTIONS=bundles`): the assets
   * `cdk deploy` uploads, each on a thread with the environment the synthesized template gives it (./bundles-mode.ts).
   */
  functions?: 'sources' | 'bundles';
  /**
   * The STS, EventBridge, Kinesis and SES stand-ins: fixed ports (0 = a free one, the default; `npm start` passes
   * LOCAL_STS_PORT, LOCAL_EVENTBRIDGE_PORT, LOCAL_KINESIS_PORT, LOCAL_SES_PORT), and an SMTP server SES relays mail
   * to (LOCAL_SES_RELAY_SMTP_URL).
   */
  awsStandIns?: StandInSettings;
}

export interface RunningService {
  baseUrl: string;
  adminKey: string;
  dataDir: string;
  /** The inbound-mail SMTP listener's port on 127.0.0.1. */
  smtpPort: number;
  emulators: Emulators;
  /** In bundles mode: the synthesized deployment and every AWS call the functions made. */
  bundles?: BundlesMode;
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
  // Created owner-only, writable, and held by this service alone (a second one is refused naming DATA_DIR).
  const dataDirClaim = claimDataDir(dataDir);
  try {
    return await startServiceOn(dataDir, dataDirClaim, options);
  } catch (error) {
    dataDirClaim.release();
    throw error;
  }
}

async function startServiceOn(
  dataDir: string,
  dataDirClaim: { release(): void },
  options: ServiceOptions,
): Promise<RunningService> {
  // PUBLIC_BASE_URL: the caller's, else the gateway's own base URL (set by the HTTP server once it listens).
  const publicBaseUrl =
    options.env?.PUBLIC_BASE_URL ??
    (process.env.PUBLIC_BASE_URL !== derivedPublicBaseUrl ? process.env.PUBLIC_BASE_URL : undefined);
  const httpOptions: HttpServerOptions = {
    port: options.port ?? Number(process.env.PORT ?? 3000),
    host: options.host ?? '127.0.0.1',
    fns: [...new Set([...routes.map((r) => r.fn), fallbackFunction])],
    ...(publicBaseUrl ? { publicBaseUrl } : {}),
  };

  // Start-up order (measured: bench/history/2026-11-health-and-start-up.md): the functions read their settings
  // when they load, and the settings name the stand-ins' endpoints, so the functions load only once the stand-ins
  // are up. Everything that does not wait for that starts at once, on the other core: the HTTP and workers threads
  // load their modules while the stand-ins start, and this thread loads what it runs only when it runs it.
  let setUp: (value: Emulators) => void = () => {};
  let setUpFailed: (error: unknown) => void = () => {};
  const standInsUp = new Promise<Emulators>((resolve, reject) => {
    setUp = resolve;
    setUpFailed = reject;
  });
  const threads = options.threads ?? process.env.LOCAL_THREADS !== '0';
  // A port in use or not allowed is the user's to fix: the error names the setting (PORT, SMTP_INBOUND_PORT...).
  const portFailure = (setting: string, port: number) => (error: unknown) => {
    throw listenFailure(setting, port, error);
  };
  const emulatorsStarting = startEmulators(
    dataDir,
    threads ? startQueuesThread : startFauxqsWithQueuesAndBuckets,
    options.awsStandIns,
  ).catch((error: unknown) => {
    const standIn = standInOfFailure(error);
    throw standIn
      ? listenFailure(standInPortSetting(standIn), options.awsStandIns?.ports?.[standIn] ?? 0, error)
      : error;
  });
  const httpStarting = threads
    ? startHttpThread(standInsUp.then((emulators) => ({ ...httpOptions, localAws: localAws(emulators) }))).catch(
        portFailure('PORT', httpOptions.port),
      )
    : undefined;
  const workersStarting = threads
    ? startWorkersThread(standInsUp.then((emulators) => workersOptionsFor(emulators, options)))
    : undefined;
  // The mailbox (SMTP, mail parsing, its own SDK clients) loads on this thread while it waits for the stand-ins.
  const mailboxLoading = import('./mailbox.ts');
  mailboxLoading.catch(() => {});
  let emulators: Emulators;
  let adminKey: string;
  let bundles: BundlesMode | undefined;
  try {
    emulators = await emulatorsStarting;
    adminKey =
      options.env?.ADMIN_KEY ??
      process.env.ADMIN_KEY ??
      loadOrCreateSecret(dataDir, 'admin-key', () => `sba_${randomBytes(32).toString('base64url')}`);
    const secretsKey =
      options.env?.SECRETS_KEY ??
      process.env.SECRETS_KEY ??
      loadOrCreateSecret(dataDir, 'secrets-key', () => randomBytes(32).toString('base64'));

    // What the deployment sets for each function, pointed at the stand-ins; always ours.
    const wiring = functionWiring(emulators, { adminKey, secretsKey });
    if (!publicBaseUrl) delete process.env.PUBLIC_BASE_URL;
    // Tunables (BOT_RATE_LIMIT_PER_MINUTE, MODEL_PROVIDER...) come from the caller's environment or `options.env`.
    Object.assign(
      process.env,
      { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN' },
      wiring,
      options.env,
    );
    bundles =
      (options.functions ?? process.env.LOCAL_FUNCTIONS) === 'bundles'
        ? await startBundles({
            names: emulators,
            dynamoEndpoint: emulators.dynamoEndpoint,
            awsEndpoint: emulators.awsEndpoint,
            standInEndpoints: emulators.standInEndpoints,
            sesEndpoint: emulators.standInEndpoints.ses,
            adminKey,
            secretsKey,
          })
        : undefined;
    // The threads read this (shared environment): which functions to load.
    process.env.LOCAL_FUNCTIONS = bundles ? 'bundles' : 'sources';
  } catch (error) {
    setUpFailed(error);
    await Promise.allSettled([httpStarting, workersStarting]);
    throw error;
  }

  // The settings are in place: the workers and the HTTP functions load, each on their thread, and the mailbox starts.
  setUp(emulators);
  // On one loop the HTTP functions load first: they and the workers share one process's configuration, read once
  // (`config()`), and PUBLIC_BASE_URL is known only once the gateway listens.
  const httpLoaded =
    httpStarting ??
    import('./http-server.ts')
      .then((m) => m.startHttpServer({ ...httpOptions, localAws: localAws(emulators) }))
      .catch(portFailure('PORT', httpOptions.port));
  const parts = await Promise.allSettled([
    workersStarting ??
      httpLoaded.then(() => import('./workers.ts').then((m) => m.startWorkers(workersOptionsFor(emulators, options)))),
    httpLoaded,
    mailboxLoading
      .then((m) => m.startLocalMailbox(options.smtpInboundPort ?? 0, options.logWorkerErrors !== false))
      .catch(portFailure('SMTP_INBOUND_PORT', options.smtpInboundPort ?? 0)),
  ]);
  const [workersPart, httpPart, mailboxPart] = parts;
  if (workersPart.status === 'rejected' || httpPart.status === 'rejected' || mailboxPart.status === 'rejected') {
    // What did start stops (threads, listeners, the stand-ins' files) before the first failure is reported.
    for (const part of parts) if (part.status === 'fulfilled') await part.value.stop().catch(() => {});
    await bundles?.stop().catch(() => {});
    await emulators.stop().catch(() => {});
    throw parts.find((part) => part.status === 'rejected')?.reason;
  }
  const [workers, http, mailbox] = [workersPart.value, httpPart.value, mailboxPart.value];
  if (!publicBaseUrl) derivedPublicBaseUrl = process.env.PUBLIC_BASE_URL;
  await http.setReady(true);

  return {
    baseUrl: `http://127.0.0.1:${http.port}`,
    adminKey,
    dataDir,
    smtpPort: mailbox.port,
    emulators,
    ...(bundles ? { bundles } : {}),
    async stop() {
      await http.setReady(false);
      await mailbox.stop();
      await http.stop();
      await workers.stop();
      await bundles?.stop();
      await emulators.stop();
      dataDirClaim.release();
    },
  };
}

function workersOptionsFor(emulators: Emulators, options: ServiceOptions): WorkersOptions {
  return {
    region: emulators.region,
    awsEndpoint: emulators.awsEndpoint,
    queueUrls: emulators.queueUrls,
    ...(options.queueWorkerFns ? { queueWorkerFns: options.queueWorkerFns } : {}),
    logWorkerErrors: options.logWorkerErrors !== false,
  };
}

/**
 * Bundles mode (`LOCAL_FUNCTIONS=bundles`), loaded only when asked for (it synthesizes the CDK stack); the threads
 * find how to start each bundle in the shared environment.
 */
async function startBundles(
  input: Omit<Parameters<typeof import('./bundles/bundles-mode.ts').startBundlesMode>[0], 'settings'>,
): Promise<BundlesMode> {
  const [{ BUNDLES_ENV, startBundlesMode }, { settingNames }] = await Promise.all([
    import('./bundles/bundles-mode.ts'),
    import('./settings.ts'),
  ]);
  const bundles = await startBundlesMode({
    ...input,
    settings: Object.fromEntries(settingNames.map((name) => [name, process.env[name]])),
  });
  process.env[BUNDLES_ENV] = JSON.stringify(bundles.launches);
  return bundles;
}

/** The PUBLIC_BASE_URL this process derived for an earlier service (a restart in the same process derives anew). */
let derivedPublicBaseUrl: string | undefined;

/**
 * The runner's threads. Decision (measured: bench/history/2026-11-health-and-start-up.md, -send.md, -webhooks.md): with everything on one event loop the
 * runner used one core of two; with the stand-ins and the workers on threads of their own, the loop shared by the
 * gateway, the HTTP functions and dynalite was the bound while the other core idled. On AWS these are other
 * services and other Lambdas, each function in an environment of its own; here the gateway with the HTTP
 * functions, the SQS + S3 stand-in and the queue workers each get an event loop, in this one process, and dynalite
 * keeps the main thread (tests count DynamoDB calls on its server). Everything still talks over loopback HTTP with
 * the same SDK clients, and the threads see the same environment (SHARE_ENV).
 */
async function startWorkersThread(options: Promise<WorkersOptions>): Promise<{ stop(): Promise<void> }> {
  return startThread('workers', new URL('./workers-thread.ts', import.meta.url), options);
}

async function startHttpThread(options: Promise<HttpServerOptions>): Promise<RunningHttpServer> {
  const thread = await startThread<{ port: number }>('http', new URL('./http-thread.ts', import.meta.url), options);
  return {
    port: thread.info.port,
    setReady: (ready) => thread.ask({ type: 'ready', ready }),
    stop: () => thread.stop(),
  };
}

async function startQueuesThread(
  dir: string,
  standIns: StandInSettings & { dir: string },
): Promise<QueuesAndBuckets & { stop(): Promise<void> }> {
  const thread = await startThread<QueuesAndBuckets>('queues', new URL('./queues-thread.ts', import.meta.url), {
    dir,
    standIns,
  });
  return { ...thread.info, stop: () => thread.stop() };
}

/** Local secrets (admin key, encryption key) survive restarts: generated once under DATA_DIR, owner-readable only. */
function loadOrCreateSecret(dataDir: string, name: string, generate: () => string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}
