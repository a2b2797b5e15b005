import { createHash } from 'node:crypto';
import { scheduledWorkers } from '#shared/contract/workers.ts';
import { startHttpDouble } from '#test/e2e/send-doubles.ts';
import { startReceiver } from '#test/e2e/webhooks-support.ts';
import type { LocalAws } from '#local/emulators.ts';
import { WEBHOOK_CHANGE_WINDOW_MS } from '#shared/integrations/index.ts';
import { localAwsClients, newQueue } from '#test/support/local-aws.ts';
import { startTestService, type TestService } from '#test/support/service.ts';
import type { KnownValues } from './key-class.ts';
import { type Recording, startRecording } from './recorder.ts';
import type { TableSchema } from './template.ts';
import { BATCH_ITEMS, type ProjectSetup, SCHEDULED_AHEAD_MS, TrafficDrivers } from './traffic.ts';

/**
 * The mixed workload the capacity model is measured on: two projects (so a key two tenants share shows), each with a
 * Twilio SMS channel and a WhatsApp channel, a webhook delivered in any order and one ordered by conversation, a send
 * token and a bot; then each request type in a phase of its own, project by project, each phase waiting until
 * everything it caused (fan-out, deliveries, ingestion) is done and the service is quiet. Runs the one-loop runner
 * (`threads: false`) in this process, so every call is recorded with the function that made it.
 */

/** One phase: `count` requests of one type for one project. */
export interface Phase {
  name: string;
  requestType: string;
  project: string;
  count: number;
  /** Events it produced (each delivered to both webhooks). */
  events: number;
  deliveries: { unordered: number; ordered: number };
  /** A management call (creating a project, a channel...), not traffic. */
  controlPlane: boolean;
  /**
   * What its requests set off downstream (fan-out, delivery) counts as its own request type's: a `webhook.test` to a
   * destination is one delivery of its own kind, not one of the webhooks' deliveries the other phases measure.
   */
  ownsDownstream: boolean;
}

export interface WorkloadRun {
  recording: Recording;
  phases: Phase[];
  known: KnownValues;
}

export interface WorkloadOptions {
  /** Requests of each type per project. */
  perType: number;
  /** Sends per project, if not `perType`: sent together, they race for the send limiters as a busy project's do. */
  sends?: number;
  log?: (line: string) => void;
}

/** How long a phase's events may take to reach the receivers: generous, for a machine other work loads too. */
const DELIVERED_WITHIN_MS = 90_000;

/** Batches sent per project (of `BATCH_ITEMS` each). */
const BATCHES = 1;

/** A quiet service: nothing but idle polls and the sweepers' runs for this long. */
const QUIET_MS = 100;

/** What a phase expects of its requests' effects. */
interface PhaseExpect {
  events?: number;
  controlPlane?: boolean;
  later?: boolean;
  /** How long its events may take to be delivered (a scheduled send's are due a minute later). */
  timeoutMs?: number;
  /** Invocations of this function, records summed, to wait for: what the phase set off downstream. */
  downstream?: { fn: string; records: number };
}

/** Runs `count` requests of one type for one project as a phase, and waits until all they caused is done. */
type PhaseRunner = (
  name: string,
  p: ProjectSetup,
  count: number,
  run: (i: number) => Promise<void>,
  expect?: PhaseExpect,
) => Promise<void>;

/** What setting a project up needs from the run. */
interface SetUpContext {
  phase: PhaseRunner;
  known: KnownValues;
  twilioBaseUrl: string;
  unorderedUrl: string;
  orderedUrl: string;
  /** A webhook was created or changed now. */
  webhookChanged(): void;
}

export async function runWorkload(schema: TableSchema, options: WorkloadOptions): Promise<WorkloadRun> {
  const log = options.log ?? (() => {});
  const recording = startRecording(schema, new Set(scheduledWorkers.map((w) => w.fn)));
  const known: KnownValues = new Map();
  const phases: Phase[] = [];
  const unordered = await startReceiver(() => 204);
  const ordered = await startReceiver(() => 204);
  const sids: string[] = [];
  const twilioApi = await startHttpDouble({
    reply: () => {
      sids.push(`SM${String(sids.length + 1).padStart(32, '0')}`);
      return { status: 201, body: { sid: sids.at(-1), status: 'queued' } };
    },
  });
  // Logs and EMF metric lines off: they would go to this process's output.
  const svc = await startTestService({
    threads: false,
    logWorkerErrors: true,
    env: { POWERTOOLS_LOG_LEVEL: process.env.CAPACITY_LOG_LEVEL ?? 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
  });
  const cleanup: (() => void)[] = [];
  let webhooksChangedAt = 0;
  recording.attachDynamo(svc.emulators.dynamoServer);
  try {
    const phase: PhaseRunner = async (name, p, count, run, expect = {}) => {
      recording.phase = `${name}@${p.label}`;
      const before = { unordered: unordered.received.length, ordered: ordered.received.length };
      // Requests that make events arrive together, as a busy project's do: the workers then take them in batches,
      // and what a worker does once per batch (the fan-out's read of a project's webhooks) is shared as at scale.
      if (expect.events) await Promise.all(Array.from({ length: count }, (_, i) => run(i)));
      else for (let i = 0; i < count; i++) await run(i);
      const events = expect.events ?? 0;
      await unordered.waitFor(before.unordered + events, expect.timeoutMs ?? DELIVERED_WITHIN_MS);
      await ordered.waitFor(before.ordered + events, expect.timeoutMs ?? DELIVERED_WITHIN_MS);
      if (expect.downstream) await invoked(recording, expect.downstream.fn, expect.downstream.records);
      // Work that goes on after the answer (events, deliveries, ingestion) needs a quiet moment to be all seen.
      await quiet(recording, expect.later || events > 0 ? QUIET_MS : 0);
      phases.push({
        name: recording.phase,
        requestType: name,
        project: p.label,
        count,
        events,
        deliveries: {
          unordered: unordered.received.length - before.unordered,
          ordered: ordered.received.length - before.ordered,
        },
        controlPlane: Boolean(expect.controlPlane),
        ownsDownstream: expect.downstream !== undefined,
      });
      log(`${recording.phase}: ${count} requests, ${events} events`);
    };

    const projects = [];
    const ctx: SetUpContext = {
      phase,
      known,
      twilioBaseUrl: twilioApi.baseUrl,
      unorderedUrl: unordered.url,
      orderedUrl: ordered.url,
      webhookChanged: () => {
        webhooksChangedAt = Date.now();
      },
    };
    for (const label of ['A', 'B']) projects.push(await setUpProject(ctx, svc, label));
    // The fan-out reads a project's webhooks afresh at every batch for a while after one changed (the window its
    // change marker allows for the change to land), then remembers them: the traffic is recorded as it runs after.
    const settled = webhooksChangedAt + WEBHOOK_CHANGE_WINDOW_MS + 2_000 - Date.now();
    if (settled > 0) {
      log(`waiting ${Math.ceil(settled / 1000)} s for the webhooks' change window to pass`);
      await new Promise((r) => setTimeout(r, settled));
    }
    const traffic = new TrafficDrivers(svc, recording);
    cleanup.push(() => traffic.close());
    for (const p of projects) await driveTraffic(phase, traffic, p, options, sids);
    const quietAgain = () => quiet(recording, QUIET_MS);
    await scheduledSends(phase, { recording, settled: quietAgain }, traffic, projects, options.perType);
    return { recording, phases, known };
  } finally {
    for (const c of cleanup) c();
    recording.stop();
    await svc.close();
    await Promise.all([unordered.close(), ordered.close(), twilioApi.close()]);
  }
}

async function setUpProject(ctx: SetUpContext, service: TestService, label: string): Promise<ProjectSetup> {
  const { phase, known } = ctx;
  const p = { label } as ProjectSetup;
  const control = (name: string, run: () => Promise<void>) =>
    phase(name, p, 1, run, { controlPlane: true }).then(() => undefined);
  await control('create project', async () => {
    const created = await service.admin('POST', '/projects', {
      companyId: 7000 + label.charCodeAt(0),
      name: `capacity ${label}`,
      monthlyBotCredits: 100_000,
    });
    p.projectId = created201(created, 'project').projectId;
  });
  await control('create API token', async () => {
    p.apiToken = created201(await service.admin('POST', `/projects/${p.projectId}/api-token`), 'API token').token;
    known.set(sha256(p.apiToken), 'token');
  });
  await control('create channel', async () => {
    p.sms = created201(
      await service.admin('POST', `/projects/${p.projectId}/channels`, {
        type: 'sms',
        name: 'SMS',
        address: `+1500555000${label === 'A' ? 6 : 7}`,
        provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok', baseUrl: ctx.twilioBaseUrl },
        // A short code's pace: the batches leave in a second or two rather than waiting their turns.
        pace: { perSecond: 100 },
      }),
      'SMS channel',
    );
  });
  await control('create channel', async () => {
    p.whatsapp = created201(
      await service.admin('POST', `/projects/${p.projectId}/channels`, {
        type: 'whatsapp',
        name: 'WhatsApp',
        address: `551199999000${label === 'A' ? 1 : 2}`,
        provider: { kind: 'whatsapp-cloud', phoneNumberId: `PN${label}`, accessToken: 'at', appSecret: 'secret' },
      }),
      'WhatsApp channel',
    );
  });
  // Every event reaches two webhooks: the project's general one (any order) and its channel's, ordered by
  // conversation.
  const webhooks = [
    { scope: 'general', url: ctx.unorderedUrl, ordering: 'none' },
    { scope: 'channel', channelId: p.sms.channelId, url: ctx.orderedUrl, ordering: 'conversation' },
    { scope: 'channel', channelId: p.whatsapp.channelId, url: ctx.orderedUrl, ordering: 'conversation' },
  ];
  for (const webhook of webhooks)
    await control('create webhook', async () => {
      const created = created201(
        await service.admin('POST', `/projects/${p.projectId}/integrations`, { product: 'webhook', ...webhook }),
        'webhook',
      );
      known.set(created.integrationId, 'webhook');
      ctx.webhookChanged();
      if (webhook.scope === 'general') p.webhookId = created.integrationId;
    });
  await control('create poller', async () => {
    const created = created201(
      await service.admin('POST', `/projects/${p.projectId}/integrations`, { product: 'poller' }),
      'poller',
    );
    p.pollerToken = created.token;
    known.set(sha256(p.pollerToken), 'token');
  });
  // A destination in the customer's AWS account: an SQS queue of the local stand-in, sent only `webhook.test`
  // events (its filter takes none of the traffic's types), so the other phases' deliveries stay the receivers'.
  const queue = await destinationQueue(service, label);
  await control('create webhook', async () => {
    const created = created201(
      await service.admin('POST', `/projects/${p.projectId}/integrations`, {
        product: 'webhook',
        scope: 'channel',
        channelId: p.whatsapp.channelId,
        eventTypes: ['message.read'],
        destination: { type: 'sqs', queueUrl: queue, roleArn: 'arn:aws:iam::123456789012:role/capacity' },
      }),
      'destination webhook',
    );
    known.set(created.integrationId, 'webhook');
    ctx.webhookChanged();
    p.destinationId = created.integrationId;
  });
  await control('create send token', async () => {
    const created = created201(
      await service.admin('POST', `/projects/${p.projectId}/integrations`, {
        product: 'custom',
        channelId: p.sms.channelId,
      }),
      'send token',
    );
    p.sendToken = created.token;
    known.set(sha256(p.sendToken), 'token');
  });
  await control('create bot', async () => {
    p.botId = created201(
      await service.admin('POST', `/projects/${p.projectId}/bots`, { name: 'Store', instructions: 'Be brief.' }),
      'bot',
    ).botId;
  });
  return p;
}

/** Each request type in a phase of its own, for one project; `sids` the provider ids the Twilio double gave so far. */
async function driveTraffic(
  phase: PhaseRunner,
  traffic: TrafficDrivers,
  p: ProjectSetup,
  options: WorkloadOptions,
  sids: string[],
): Promise<void> {
  const n = options.perType;
  const issued = sids.length;
  const sends = Math.max(n, options.sends ?? n);
  await phase('send', p, sends, (i) => traffic.send(p, i), { events: sends });
  p.sent = sids.slice(issued);
  await phase('status callback', p, n, (i) => traffic.statusCallback(p, i), { events: n });
  await phase('inbound message', p, n, (i) => traffic.twilioInbound(p, i), { events: n });
  await phase('inbound WhatsApp message', p, n, (i) => traffic.whatsappInbound(p, i), { events: n });
  await phase('reported event', p, n, (i) => traffic.reportedEvent(p, i), { events: n });
  // A management read that reads every partition of a webhook's log: the log's shards show on the wire.
  await phase('webhook deliveries listed', p, 1, () => traffic.listDeliveries(p));
  await phase('knowledge file ingested', p, n, (i) => traffic.knowledgeFile(p, i), { later: true });
  await phase('search', p, n, () => traffic.bots(p, 'search', { botId: p.botId, query: 'opening hours' }));
  await phase('completion', p, n, () => traffic.bots(p, 'completion', { botId: p.botId, prompt: 'Hours?' }));
  await phase('chat completion', p, n, () =>
    traffic.bots(p, 'chat/completions', { model: p.botId, messages: [{ role: 'user', content: 'Hours?' }] }),
  );
  // One batch: its items take turns at the channel's pace in the outbound worker, as a campaign's do.
  await phase('batch send', p, BATCHES, (i) => traffic.batchSend(p, i), { events: BATCHES * BATCH_ITEMS });
  await phase('events poll', p, n, () => traffic.poll(p));
  await phase('console page', p, n, () => traffic.consolePage(p));
  await phase('destination delivery', p, n, () => traffic.destinationDelivery(p), {
    downstream: { fn: 'deliver', records: n },
  });
  await phase('health', p, n, () => traffic.health(p));
  await phase('extract', p, n, () => traffic.extract(p));
}

/** How far apart the projects' scheduled sends are due: room for one project's to be delivered before the next's. */
const SCHEDULED_STAGGER_MS = 20_000;

/**
 * Each project's scheduled sends in a phase of its own, their minute waited out once for all projects: the later
 * projects' sends are accepted first (in their own phases), due {@link SCHEDULED_STAGGER_MS} apart, then the first
 * project's, and each phase then waits for its own. A phase still open when the next project's sends fall due would
 * take their calls as its own: the run stops there rather than record them so.
 */
async function scheduledSends(
  phase: PhaseRunner,
  /** Where the later projects' sends are accepted: their phase's name set, then the service quiet again. */
  accepting: { recording: Pick<Recording, 'phase'>; settled(): Promise<void> },
  traffic: TrafficDrivers,
  projects: ProjectSetup[],
  n: number,
): Promise<void> {
  const name = 'scheduled send';
  const dueAt = new Map<ProjectSetup, number>();
  for (const [k, p] of [...projects.entries()].reverse().slice(0, -1)) {
    accepting.recording.phase = `${name}@${p.label}`;
    const aheadMs = SCHEDULED_AHEAD_MS + k * SCHEDULED_STAGGER_MS;
    dueAt.set(p, Date.now() + aheadMs);
    for (let i = 0; i < n; i++) await traffic.scheduledSend(p, i, aheadMs);
    await accepting.settled();
  }
  for (const [k, p] of projects.entries()) {
    const due = dueAt.get(p);
    if (due !== undefined && Date.now() > due - 1000)
      throw new Error(`${name}@${projects[k - 1]!.label} was still recording when ${p.label}'s sends fell due`);
    const accept = k === 0 ? (i: number) => traffic.scheduledSend(p, i) : async () => {};
    await phase(name, p, n, accept, {
      events: n,
      timeoutMs: SCHEDULED_AHEAD_MS + k * SCHEDULED_STAGGER_MS + DELIVERED_WITHIN_MS,
    });
  }
}

const created201 = (res: { status: number; body: any }, what: string) => {
  if (res.status !== 201 && res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** A queue of the local SQS stand-in for a project's destination webhook. */
async function destinationQueue(service: TestService, label: string): Promise<string> {
  const info = (await (await fetch(`${service.baseUrl}/local/aws`)).json()) as LocalAws;
  const sqs = localAwsClients(info).sqs;
  try {
    return (await newQueue(sqs, `capacity-destination-${label}-${Date.now().toString(36)}`)).url;
  } finally {
    sqs.destroy();
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Waits until `fn` has been invoked in the current phase with `records` records in all (30 s at most). */
async function invoked(recording: Recording, fn: string, records: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  const seen = () =>
    recording.invocations.filter((i) => i.phase === recording.phase && i.fn === fn).reduce((n, i) => n + i.records, 0);
  while (seen() < records) {
    if (Date.now() > deadline) throw new Error(`${recording.phase}: ${fn} saw ${seen()} of ${records} records in 30 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until no invocation runs and nothing but idle polls and sweeps happened for `QUIET_MS`: what the phase
 * caused is all recorded (a batch's messages are deleted just after its invocation ends).
 */
async function quiet(recording: Recording, quietMs: number): Promise<void> {
  for (;;) {
    const left = quietMs - (Date.now() - recording.lastCallAt);
    if (left <= 0 && recording.running() === 0) return;
    await new Promise((r) => setTimeout(r, Math.max(left, 10)));
  }
}
