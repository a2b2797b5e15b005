/**
 * What the crash ledger runs against: the service (restarted on the same data after each kill), the doubles around
 * it (the webhook receivers, Twilio's API) and the projects, channels, webhooks and tokens the inputs go to.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { LocalAws } from '#local/emulators.ts';
import { startHttpDouble } from '#test/e2e/send-doubles.ts';
import { startReceiver, type TestReceiver } from '#test/e2e/webhooks-support.ts';
import { type CrashableService, type CrashRun, crashRun } from '#test/support/crash.ts';
import { localAwsClients, newQueue } from '#test/support/local-aws.ts';
import type { ServiceClient } from '#test/support/service.ts';
import type { LedgerOptions } from './types.ts';

/** Twilio's double names each message by its body, so a send's provider id is known from what was sent. */
export const sidOf = (body: string) => `SM${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;

/**
 * A free port below the system's ephemeral range: the service keeps it across restarts, and a port from that range
 * may be handed to another process's `listen(0)` while the service is down (seen on a busy shared machine).
 */
const freePort = async (): Promise<number> => {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const server: Server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!free) continue;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
};

/** The main project: one general webhook, the channels the inputs reach, a send token per sending channel. */
export interface MainProject {
  projectId: string;
  webhookId: string;
  twilioChannelId: string;
  whatsappChannelId: string;
  mailbox: string;
  sendToken: string;
  /** Batch items and scheduled sends: a channel of their own with a pace. */
  pacedToken: string;
}

/** The second project, whose one webhook is an SQS destination. */
export interface SqsProject {
  projectId: string;
  channelId: string;
  webhookId: string;
  queueUrl: string;
}

export interface World {
  options: LedgerOptions;
  /** Logs a line of the run (kills, restarts, the drain): kept with its time for the ledger, and passed on. */
  log: (line: string) => void;
  /** The lines logged so far, each with its time. */
  runLog: string[];
  receiver: TestReceiver;
  /** Webhooks ordered by conversation, for the received messages only: what order they reach them in. */
  orderedReceiver: TestReceiver;
  twilioApi: Awaited<ReturnType<typeof startHttpDouble>>;
  run: CrashRun;
  env: Record<string, string>;
  base: string;
  smtpPort: number;
  /** The service now running (replaced at each restart). */
  service: CrashableService;
  main: MainProject;
  sqs: SqsProject;
  /** The runner's AWS stand-ins, as the service running now serves them (each restart gives them new ports). */
  localAws(): Promise<LocalAws>;
  /**
   * Keeps what the service running now logged at warning level or above (for a loss, {@link Ledger.serviceWarnings});
   * with `keep`, writes its whole output beside its data.
   */
  keepOutput(n: number | string): void;
  /** The warnings and errors each service run logged, in order, `[run n]` before each. */
  warnings: string[];
}

type Admin = () => ServiceClient;

/** Warning lines kept over a whole run (a crash loop could log without end). */
const MAX_WARNINGS = 400;
/** The run's own log lines kept for the ledger (a run logs a few per kill, and one per wait of the drain). */
const MAX_RUN_LOG_LINES = 400;

const created = async (admin: Admin, path: string, body: unknown, what: string) => {
  const res = await admin().admin('POST', path, body);
  if (res.status !== 201) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** `urls`: the general webhook's receiver, and the one the channels' webhooks ordered by conversation post to. */
async function setUpMainProject(
  admin: Admin,
  urls: { general: string; ordered: string },
  twilioBaseUrl: string,
): Promise<MainProject> {
  const { projectId } = await admin().newProject();
  const integrations = `/projects/${projectId}/integrations`;
  const channels = `/projects/${projectId}/channels`;
  const webhookId = (
    await admin().admin('POST', integrations, { product: 'webhook', scope: 'general', url: urls.general })
  ).body.integrationId as string;
  const twilioProvider = { kind: 'twilio', accountSid: 'AC1', authToken: 'tok', baseUrl: twilioBaseUrl };
  const channel = async (body: Record<string, unknown>) => (await admin().admin('POST', channels, body)).body;
  const twilioChannel = await channel({
    type: 'sms',
    name: 'Twilio',
    address: '+15005550006',
    provider: twilioProvider,
  });
  const whatsapp = await channel({
    type: 'whatsapp',
    name: 'WhatsApp',
    address: '5511999990000',
    provider: { kind: 'whatsapp-cloud', phoneNumberId: 'PN1', accessToken: 'at', appSecret: 'app-secret' },
  });
  const mailbox = `crash-${Date.now()}@mail.example.com`;
  const mailChannel = await channel({ type: 'email', name: 'Mail', address: mailbox });
  // Each channel's received messages also go to a webhook ordered by conversation (a project has one general webhook).
  for (const { channelId } of [twilioChannel, whatsapp, mailChannel]) {
    const ordered = {
      product: 'webhook',
      scope: 'channel',
      channelId,
      url: urls.ordered,
      ordering: 'conversation',
      eventTypes: ['message.received'],
    };
    await created(admin, integrations, ordered, 'ordered webhook');
  }
  const sendToken = (
    await admin().admin('POST', integrations, { product: 'custom', channelId: twilioChannel.channelId })
  ).body.token as string;
  // Batch items and scheduled sends leave at a channel's pace: one of their own, paced well above the load.
  const pacedChannel = await channel({
    type: 'sms',
    name: 'Paced',
    address: '+15005550007',
    provider: twilioProvider,
    pace: { perSecond: 200 },
  });
  const pacedToken = (
    await admin().admin('POST', integrations, { product: 'custom', channelId: pacedChannel.channelId })
  ).body.token as string;
  return {
    projectId,
    webhookId,
    twilioChannelId: twilioChannel.channelId,
    whatsappChannelId: whatsapp.channelId,
    mailbox,
    sendToken,
    pacedToken,
  };
}

/**
 * A project whose one webhook is an SQS destination: a queue of the runner's stand-in (kept on the data directory
 * across kills, as the customer's queue outlives our service).
 */
async function setUpSqsProject(admin: Admin, localAws: () => Promise<LocalAws>): Promise<SqsProject> {
  const projectId = (await admin().newProject()).projectId;
  const channelId = (
    await admin().admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'SQS',
      address: '+15005550008',
    })
  ).body.channelId as string;
  const aws = localAwsClients(await localAws());
  const queue = await newQueue(aws.sqs, `crash-ledger-${Date.now()}`).finally(() => aws.destroy());
  const hook = await created(
    admin,
    `/projects/${projectId}/integrations`,
    {
      product: 'webhook',
      scope: 'general',
      destination: { type: 'sqs', queueUrl: queue.url, roleArn: 'arn:aws:iam::123456789012:role/crash-ledger' },
    },
    'SQS webhook',
  );
  return { projectId, channelId, webhookId: hook.integrationId as string, queueUrl: queue.url };
}

/** Starts the doubles and the service, and sets up both projects. */
export async function startWorld(options: LedgerOptions): Promise<World> {
  const receiver = await startReceiver();
  const orderedReceiver = await startReceiver();
  const twilioApi = await startHttpDouble({
    reply: (req) => ({
      status: 201,
      body: { sid: sidOf(new URLSearchParams(req.body).get('Body') ?? ''), status: 'queued' },
    }),
  });
  const run = crashRun();
  const port = await freePort();
  const smtpPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Warnings and errors logged: a lost input's trace (an input dropped is logged at warning level at least).
  const env = {
    PORT: String(port),
    SMTP_INBOUND_PORT: String(smtpPort),
    PUBLIC_BASE_URL: base,
    POWERTOOLS_LOG_LEVEL: 'WARN',
    ...options.env,
  };
  const localAws = async () => (await (await fetch(`${base}/local/aws`)).json()) as LocalAws;
  const runLog: string[] = [];
  const world = {
    options,
    runLog,
    // Kept for the ledger (printed with a loss) and passed on to the caller's log.
    log: (line: string) => {
      if (runLog.length < MAX_RUN_LOG_LINES) runLog.push(`${new Date().toISOString()} ${line}`);
      options.log?.(line);
    },
    receiver,
    orderedReceiver,
    twilioApi,
    run,
    env,
    base,
    smtpPort,
    service: await run.start(undefined, env),
    localAws,
    warnings: [] as string[],
    keepOutput: (n: number | string) => {
      const output = world.service.process.output();
      for (const line of output.split('\n'))
        if (/"level":"(WARN|ERROR|CRITICAL)"/.test(line) && world.warnings.length < MAX_WARNINGS)
          world.warnings.push(`[run ${n}] ${line.slice(0, 600)}`);
      if (options.keep) writeFileSync(join(run.dataDir, `service-${n}.log`), output);
    },
  };
  const admin = () => world.service.client;
  const urls = { general: receiver.url, ordered: orderedReceiver.url };
  const main = await setUpMainProject(admin, urls, twilioApi.baseUrl);
  const sqs = await setUpSqsProject(admin, localAws);
  return Object.assign(world, { main, sqs });
}
