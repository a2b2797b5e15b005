import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { startService, type RunningService, type ServiceOptions } from '#local/service.ts';
import { eventually } from './eventually.ts';
import { bootRequest } from './group-lifetime.ts';
import { deniedCalls } from './iam.ts';
import { recordTraffic, saveTraffic, TRAFFIC_DIR_ENV } from './openapi-traffic.ts';
import type { HostedBundles, HostedServiceInfo } from './service-host.ts';

/** What a test file knows of the service it calls: where it is, its admin key, its stand-ins' addresses. */
export type ServiceInfo = Pick<HostedServiceInfo, 'baseUrl' | 'adminKey' | 'dataDir' | 'smtpPort' | 'emulators'>;

/** A client of a running service, as a test calls it. */
export interface ServiceClient extends ServiceInfo {
  /** Calls the management API with the admin key; JSON in, JSON out. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  /** Sends a message with a custom token: `POST /api/integration/generic`, JSON body. */
  send(token: string, body: unknown): Promise<Response>;
  /** Creates a project (a tenant of its own: every test makes its own) and its API token. */
  newProject(input?: {
    companyId?: number;
    monthlyBotCredits?: number;
    name?: string;
  }): Promise<{ projectId: string; token: string }>;
  /**
   * Calls the Bots API with a project token: `POST /api/v1/ai/<operation>`; an object body goes as JSON, a string as
   * it is (for malformed bodies).
   */
  botsApi(
    token: string,
    operation: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** The project's bot credits left this month (`disponivel`); throws unless the read answers 200. */
  botBalance(projectId: string): Promise<number>;
  /**
   * Puts a knowledge file on a bot with the admin key (`PUT …/bots/{botId}/knowledge/{fileName}`), typed by its
   * extension unless `contentType` is given.
   */
  putKnowledge(
    projectId: string,
    botId: string,
    fileName: string,
    body: string | Uint8Array,
    contentType?: string,
  ): Promise<{ status: number; body: any }>;
  /** Waits (up to 30 s) until the bot has at least `count` knowledge files (every page), every one `ready`. */
  knowledgeReady(projectId: string, botId: string, count?: number): Promise<void>;
  /** Ends this file's use of the service (saves recorded traffic); a service of its own also stops. */
  close(): Promise<void>;
}

/** A service this test file started itself (in its own process): the client, and the running service's internals. */
export interface TestService extends ServiceClient {
  emulators: RunningService['emulators'];
  bundles?: RunningService['bundles'];
  stop(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  html: 'text/html',
  pdf: 'application/pdf',
};

/** A JSON answer's status, body (undefined when empty) and headers. */
async function jsonAnswer(response: Response) {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/**
 * Company ids of the projects a file creates: random per file, so files sharing a service never collide on one by
 * chance (nothing enforces uniqueness, but a test reading `companyId` back expects its own).
 */
let companyId = 1000 + Math.floor(Math.random() * 1_000_000) * 100;

/** A client for a running service. `onClose` runs when the file is done with it. */
export function serviceClient(info: ServiceInfo, onClose: () => Promise<void> = async () => {}): ServiceClient {
  const admin: ServiceClient['admin'] = async (method, path, body) => {
    const response = await fetch(`${info.baseUrl}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${info.adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return jsonAnswer(response);
  };
  // With OPENAPI_TRAFFIC_DIR set, every exchange with this service is saved for test/e2e/openapi-traffic.test.ts.
  const traffic = process.env[TRAFFIC_DIR_ENV] ? recordTraffic(info.baseUrl) : undefined;
  return {
    ...info,
    admin,
    send: (token, body) =>
      fetch(`${info.baseUrl}/api/integration/generic`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    async newProject(input = {}) {
      const created = await admin('POST', '/projects', {
        companyId: input.companyId ?? ++companyId,
        name: input.name ?? 'Test project',
        monthlyBotCredits: input.monthlyBotCredits ?? 0,
      });
      if (created.status !== 201) throw new Error(`project create failed: ${JSON.stringify(created.body)}`);
      const token = await admin('POST', `/projects/${created.body.projectId}/api-token`);
      return { projectId: created.body.projectId, token: token.body.token };
    },
    botsApi: async (token, operation, body, headers = {}) =>
      jsonAnswer(
        await fetch(`${info.baseUrl}/api/v1/ai/${operation}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    async botBalance(projectId) {
      const res = await admin('GET', `/projects/${projectId}/bot-credits`);
      if (res.status !== 200) throw new Error(`bot credits read failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.disponivel as number;
    },
    putKnowledge: async (projectId, botId, fileName, body, contentType) =>
      jsonAnswer(
        await fetch(
          `${info.baseUrl}/admin/v1/projects/${projectId}/bots/${botId}/knowledge/${encodeURIComponent(fileName)}`,
          {
            method: 'PUT',
            headers: {
              authorization: `Bearer ${info.adminKey}`,
              'content-type': contentType ?? CONTENT_TYPES[fileName.split('.').pop()!] ?? 'text/plain',
            },
            body,
          },
        ),
      ),
    async knowledgeReady(projectId, botId, count = 1) {
      await eventually(
        async () => {
          const items: { status: string }[] = [];
          let cursor: string | undefined;
          do {
            const page = await admin(
              'GET',
              `/projects/${projectId}/bots/${botId}/knowledge?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            );
            items.push(...page.body.items);
            cursor = page.body.nextCursor;
          } while (cursor);
          return items.length >= count && items.every((i) => i.status === 'ready');
        },
        30_000,
        `${count} knowledge file(s) of ${botId} ready`,
      );
    },
    async close() {
      if (traffic) {
        traffic.stop();
        await traffic.settled();
        saveTraffic(traffic.exchanges);
      }
      await onClose();
    },
  };
}

/** How long a file waits for its group's service to boot (the bundles group's first build of the bundles included). */
const GROUP_BOOT_TIMEOUT_MS = 180_000;

/** By info file: a worker that runs files of several groups reads each group's once. */
const groupInfos = new Map<string, Promise<HostedServiceInfo>>();

/** The group's service's info, once the host has written it (./global-service.ts). */
function groupServiceInfo(): Promise<HostedServiceInfo> {
  const { infoFile } = inject('service');
  let info = groupInfos.get(infoFile);
  if (!info) {
    info = readWhenWritten(infoFile);
    groupInfos.set(infoFile, info);
  }
  return info;
}

async function readWhenWritten(infoFile: string): Promise<HostedServiceInfo> {
  const deadline = Date.now() + GROUP_BOOT_TIMEOUT_MS;
  // The group's service boots when one of its files first asks (./global-service.ts, `groupSetup`).
  if (!existsSync(infoFile)) writeFileSync(bootRequest(infoFile), '');
  for (let pause = 20; !existsSync(infoFile); pause = Math.min(pause * 1.5, 200)) {
    if (Date.now() > deadline) throw new Error(`the group's service did not start within ${GROUP_BOOT_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, pause));
  }
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as HostedServiceInfo | { error: string };
  if ('error' in info) throw new Error(info.error);
  return info;
}

/**
 * The service of this file's group (a Vitest project whose global setup started it, test/support/global-service.ts):
 * one boot for many files, waited for here (it boots when the group's first file asks, or with the run for the e2e and
 * bundles groups). Each test makes its own projects (`newProject`), so files never share data by accident.
 */
export async function sharedService(): Promise<ServiceClient> {
  return serviceClient(await groupServiceInfo());
}

/**
 * The `bundles` group's service's bundles (deployment, names, launches) and every AWS call its functions made so
 * far: read again at each call.
 */
export async function sharedBundles(): Promise<HostedBundles> {
  const url = (await groupServiceInfo()).bundlesUrl;
  if (!url) throw new Error("this file's group service does not run the deploy bundles (vitest.config.ts, `bundles`)");
  return (await fetch(url)).json() as Promise<HostedBundles>;
}

/**
 * Starts a whole local service in this test process on a free port, with its data in a fresh temp folder: for the
 * files that need a service of their own (a restart, a crash, counting its DynamoDB calls, its log lines).
 */
export async function startTestService(options: ServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const service = await startService({
    port: 0,
    ...options,
    dataDir,
    logWorkerErrors: options.logWorkerErrors ?? false,
  });
  const client = serviceClient(
    {
      baseUrl: service.baseUrl,
      adminKey: service.adminKey,
      dataDir: service.dataDir,
      smtpPort: service.smtpPort,
      emulators: service.emulators,
    },
    async () => {
      await service.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      // Bundles mode: every AWS call the functions made must be allowed by their roles in the synthesized stack.
      if (service.bundles) {
        const { deployment, names, awsCalls } = service.bundles;
        const denied = await deniedCalls(deployment, names, awsCalls);
        if (denied.length) throw new Error(`AWS calls the deployed roles would deny:\n${denied.join('\n')}`);
      }
    },
  );
  return {
    ...client,
    emulators: service.emulators,
    ...(service.bundles ? { bundles: service.bundles } : {}),
    stop: () => service.stop(),
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The group's service (test/support/global-service.ts). */
    service: { infoFile: string };
  }
}
