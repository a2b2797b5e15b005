import { createHash, createHmac } from 'node:crypto';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import twilio from 'twilio';
import { collections } from '#shared/contract/keys.ts';
import { scheduledWorkers } from '#shared/contract/workers.ts';
import { startHttpDouble } from '#test/e2e/send-doubles.ts';
import { startReceiver } from '#test/e2e/webhooks-support.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';
import { startTestService, type TestService } from '#test/support/service.ts';
import type { KnownValues } from './key-class.ts';
import { type Recording, startRecording } from './recorder.ts';
import type { TableSchema } from './template.ts';

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

/** A quiet service: nothing but idle polls and the sweepers' runs for this long. */
const QUIET_MS = 100;

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
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
  });
  const cleanup: (() => void)[] = [];
  recording.attachDynamo(svc.emulators.dynamoServer);
  try {
    const phase = async (
      name: string,
      p: ProjectSetup,
      count: number,
      run: (i: number) => Promise<void>,
      expect: { events?: number; controlPlane?: boolean; later?: boolean } = {},
    ) => {
      recording.phase = `${name}@${p.label}`;
      const before = { unordered: unordered.received.length, ordered: ordered.received.length };
      // Requests that make events arrive together, as a busy project's do: the workers then take them in batches,
      // and what a worker does once per batch (the fan-out's read of a project's webhooks) is shared as at scale.
      if (expect.events) await Promise.all(Array.from({ length: count }, (_, i) => run(i)));
      else for (let i = 0; i < count; i++) await run(i);
      const events = expect.events ?? 0;
      await unordered.waitFor(before.unordered + events, 30_000);
      await ordered.waitFor(before.ordered + events, 30_000);
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
      });
      log(`${recording.phase}: ${count} requests, ${events} events`);
    };
    async function setUpProject(service: TestService, label: string): Promise<ProjectSetup> {
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
            provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok', baseUrl: twilioApi.baseUrl },
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
        { scope: 'general', url: unordered.url, ordering: 'none' },
        { scope: 'channel', channelId: p.sms.channelId, url: ordered.url, ordering: 'conversation' },
        { scope: 'channel', channelId: p.whatsapp.channelId, url: ordered.url, ordering: 'conversation' },
      ];
      for (const webhook of webhooks)
        await control('create webhook', async () => {
          const created = created201(
            await service.admin('POST', `/projects/${p.projectId}/integrations`, { product: 'webhook', ...webhook }),
            'webhook',
          );
          known.set(created.integrationId, 'webhook');
          if (webhook.scope === 'general') p.webhookId = created.integrationId;
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

    const projects = [];
    for (const label of ['A', 'B']) projects.push(await setUpProject(svc, label));
    const n = options.perType;
    const traffic = new TrafficDrivers(svc, recording);
    cleanup.push(() => traffic.close());
    for (const p of projects) {
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
      await phase('health', p, n, () => traffic.health(p));
      await phase('extract', p, n, () => traffic.extract(p));
    }
    return { recording, phases, known };
  } finally {
    for (const c of cleanup) c();
    recording.stop();
    await svc.close();
    await Promise.all([unordered.close(), ordered.close(), twilioApi.close()]);
  }
}

const created201 = (res: { status: number; body: any }, what: string) => {
  if (res.status !== 201 && res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface ProjectSetup {
  label: string;
  projectId: string;
  apiToken: string;
  sendToken: string;
  botId: string;
  /** The general webhook (any order). */
  webhookId: string;
  sms: { channelId: string; address: string };
  whatsapp: { channelId: string; address: string };
  /** Provider ids of the messages sent (the Twilio double's), for their status callbacks. */
  sent: string[];
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

const ok = async (res: Response, what: string, statuses = [200, 201, 202]) => {
  const text = await res.text();
  if (!statuses.includes(res.status)) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text.startsWith('{') ? JSON.parse(text) : text;
};

/** How each request type reaches the service, as its real caller sends it. */
class TrafficDrivers {
  private readonly dynamo: DynamoDBClient;
  constructor(
    private readonly svc: TestService,
    private readonly recording: Recording,
  ) {
    this.dynamo = new DynamoDBClient({
      region: svc.emulators.region,
      endpoint: svc.emulators.dynamoEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }

  close() {
    this.dynamo.destroy();
  }
  private contact = (i: number) => `+551198888${String(7000 + (i % 50)).padStart(4, '0')}`;

  async send(p: ProjectSetup, i: number) {
    await ok(await this.svc.send(p.sendToken, { to: this.contact(i), body: `capacity ${i}` }), 'send');
  }

  private twilioPost(p: ProjectSetup, params: Record<string, string>) {
    const url = `${this.svc.baseUrl}/inbound/twilio/${p.sms.channelId}`;
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature('tok', url, params),
      },
      body: new URLSearchParams(params).toString(),
    });
  }

  async statusCallback(p: ProjectSetup, i: number) {
    const sid = p.sent[i];
    if (!sid) throw new Error(`no sent message ${i} to report a status for`);
    const params = { AccountSid: 'AC1', MessageSid: sid, MessageStatus: 'delivered', To: this.contact(i), From: '' };
    await ok(await this.twilioPost(p, params), 'status callback');
  }

  async twilioInbound(p: ProjectSetup, i: number) {
    const params = {
      AccountSid: 'AC1',
      MessageSid: `SMin${p.label}${i}x${Date.now()}`,
      From: this.contact(i),
      To: p.sms.address,
      Body: 'hello',
      NumMedia: '0',
    };
    await ok(await this.twilioPost(p, params), 'Twilio inbound');
  }

  async whatsappInbound(p: ProjectSetup, i: number) {
    const from = this.contact(i).slice(1);
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: p.whatsapp.address, phone_number_id: `PN${p.label}` },
                contacts: [{ profile: { name: 'Ana' }, wa_id: from }],
                messages: [
                  {
                    from,
                    id: `wamid.cap${p.label}${i}x${Date.now()}`,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: 'oi' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', 'secret').update(body).digest('hex')}`;
    const res = await fetch(`${this.svc.baseUrl}/inbound/whatsapp/${p.whatsapp.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    await ok(res, 'WhatsApp inbound');
  }

  async reportedEvent(p: ProjectSetup, i: number) {
    const res = await this.svc.admin('POST', `/projects/${p.projectId}/events`, {
      channelId: p.sms.channelId,
      type: 'message.failed',
      data: { marker: `capacity-${p.label}-${i}` },
    });
    if (res.status !== 202) throw new Error(`reported event: ${res.status} ${JSON.stringify(res.body)}`);
  }

  async listDeliveries(p: ProjectSetup) {
    const res = await this.svc.admin('GET', `/projects/${p.projectId}/integrations/${p.webhookId}/deliveries`);
    if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${JSON.stringify(res.body)}`);
  }

  async knowledgeFile(p: ProjectSetup, i: number) {
    const text = `# Opening hours ${i}\n\nThe store opens at 9 and closes at 18, Monday to Saturday. ${'Details. '.repeat(200)}`;
    const res = await this.svc.putKnowledge(p.projectId, p.botId, `hours-${i}.md`, text);
    if (res.status >= 300) throw new Error(`knowledge upload: ${res.status} ${JSON.stringify(res.body)}`);
    await this.readyFiles(p, i + 1);
  }

  /** Waits until the bot has `count` ready files, read straight from the table as the workload's probe. */
  private async readyFiles(p: ProjectSetup, count: number) {
    const { pk, skPrefix } = collections.knowledgeFiles(p.botId);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const page = await this.recording.probe(() =>
        this.dynamo.send(
          new QueryCommand({
            TableName: this.svc.emulators.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: skPrefix } },
          }),
        ),
      );
      const statuses = (page.Items ?? []).map((item) => item.status?.S);
      if (statuses.filter((s) => s === 'ready').length >= count) return;
      if (statuses.includes('failed')) throw new Error(`a knowledge file of ${p.botId} failed`);
      if (Date.now() > deadline) throw new Error(`${count} knowledge files of ${p.botId} not ready in 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async bots(p: ProjectSetup, operation: string, body: unknown) {
    const res = await this.svc.botsApi(p.apiToken, operation, body);
    if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(res.body)}`);
  }

  async health(p: ProjectSetup) {
    const res = await fetch(`${this.svc.baseUrl}/api/v1/ai/health`, {
      headers: { authorization: `Bearer ${p.apiToken}` },
    });
    await ok(res, 'health');
  }

  async extract(p: ProjectSetup) {
    const form = new FormData();
    const pdf = await textPdf(['Invoice 42: two widgets, 10 each.']);
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'invoice.pdf');
    const res = await fetch(`${this.svc.baseUrl}/api/v1/ai/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.apiToken}` },
      body: form,
    });
    await ok(res, 'extract');
  }
}
