import { renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, type ServiceOptions } from '#local/service.ts';

/**
 * A service of its own for a group of e2e files (./global-service.ts starts this module as a child process): the
 * whole local service, as `npm start` runs it, with the group's settings. A process per service, because the
 * functions read their settings once per "cold start" and share one `process.env`: two services in one process would
 * share them. It writes what the test files need (base URL, admin key, the stand-ins' addresses) to the file its
 * parent named, stops when asked, and exits when its parent goes away.
 */
export interface HostedServiceInfo {
  baseUrl: string;
  adminKey: string;
  dataDir: string;
  smtpPort: number;
  env: Record<string, string>;
  /**
   * Bundles mode: where the group's files read what the service knows of its bundles (`GET` answers
   * {@link HostedBundles} as JSON, the AWS calls recorded so far included), as a file's own service gives it in
   * `svc.bundles`.
   */
  bundlesUrl?: string;
  emulators: {
    region: string;
    tableName: string;
    dynamoEndpoint: string;
    awsEndpoint: string;
    queueUrls: Record<string, string>;
    bucketNames: Record<string, string>;
  };
}

/** What a bundles-mode service knows of its bundles, as the group's files read it (`bundlesUrl`). */
export type HostedBundles = Omit<NonNullable<Awaited<ReturnType<typeof startService>>['bundles']>, 'stop'>;

const options = JSON.parse(process.env.SERVICE_HOST_OPTIONS ?? '{}') as ServiceOptions;
const service = await startService({ port: 0, logWorkerErrors: false, ...options });
const bundlesUrl = service.bundles ? await serveBundles(service.bundles) : undefined;
const info: HostedServiceInfo = {
  baseUrl: service.baseUrl,
  adminKey: service.adminKey,
  dataDir: service.dataDir,
  smtpPort: service.smtpPort,
  env: options.env ?? {},
  ...(bundlesUrl ? { bundlesUrl } : {}),
  emulators: {
    region: service.emulators.region,
    tableName: service.emulators.tableName,
    dynamoEndpoint: service.emulators.dynamoEndpoint,
    awsEndpoint: service.emulators.awsEndpoint,
    queueUrls: { ...service.emulators.queueUrls },
    bucketNames: { ...service.emulators.bucketNames },
  },
};
// The group's files wait for this file (./service.ts, `sharedService`): written whole, once the service answers.
const infoFile = process.env.SERVICE_HOST_INFO_FILE!;
writeFileSync(`${infoFile}.tmp`, JSON.stringify(info));
renameSync(`${infoFile}.tmp`, infoFile);
process.send!({ type: 'ready', info });

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await service.stop();
  // Bundles mode: every AWS call the functions made must have been allowed by their roles in the synthesized stack.
  // The IAM check loaded only here (a chunk of its own in the runner bundle): no other group needs it.
  const denied = service.bundles
    ? await (await import('./iam.ts')).deniedCalls(
        service.bundles.deployment,
        service.bundles.names,
        service.bundles.awsCalls,
      )
    : [];
  process.send!({ type: 'stopped', denied }, () => process.exit(0));
}
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') void stop();
});
// The test run ended or crashed: nothing must outlive it.
process.on('disconnect', () => process.exit(0));

/** Answers every GET with the bundles' deployment, names, launches and the AWS calls recorded so far (127.0.0.1). */
async function serveBundles(bundles: HostedBundles): Promise<string> {
  const server = createServer((_req, res) => {
    const { deployment, names, launches, awsCalls } = bundles;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ deployment, names, launches, awsCalls }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
