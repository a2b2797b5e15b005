import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { WORKLOAD_BATCH_ITEMS } from '#infra/capacity-target.ts';
import { collections } from '#shared/contract/keys.ts';
import { metaEnvelope, sendMetaWebhook } from '#test/support/meta-webhook.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';
import { postTwilioCallback } from '#test/support/twilio-callback.ts';
import type { TestService } from '#test/support/service.ts';
import type { Recording } from './recorder.ts';

/** How each request type of the capacity workload (./workload.ts) reaches the service, as its real caller sends it. */

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
  /** A poller's token (`GET /api/integration/events`). */
  pollerToken: string;
  /** A webhook delivering to an SQS queue in the customer's account (a destination), sent `webhook.test` events. */
  destinationId: string;
}

/** Messages in each batch the workload sends (the scenarios count batches of this many). */
export const BATCH_ITEMS = WORKLOAD_BATCH_ITEMS;
/** How far ahead a scheduled send is due: the nearest time the API takes (a minute), and room for a loaded machine. */
export const SCHEDULED_AHEAD_MS = 75_000;

const ok = async (res: Response, what: string, statuses = [200, 201, 202]) => {
  const text = await res.text();
  if (!statuses.includes(res.status)) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text.startsWith('{') ? JSON.parse(text) : text;
};

export class TrafficDrivers {
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
    return postTwilioCallback(`${this.svc.baseUrl}/inbound/twilio/${p.sms.channelId}`, 'tok', params);
  }

  /** A batch of `BATCH_ITEMS` sends, accepted at once and sent by the outbound worker at the channel's pace. */
  async batchSend(p: ProjectSetup, i: number) {
    const messages = Array.from({ length: BATCH_ITEMS }, (_, k) => ({
      to: this.contact(i * BATCH_ITEMS + k),
      body: `batch ${i}.${k}`,
    }));
    const res = await fetch(`${this.svc.baseUrl}/api/integration/generic/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.sendToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    });
    await ok(res, 'batch send');
  }

  /**
   * A send due a minute from now (or `aheadMs`): written with its due entry, queued delayed to its time, sent by the
   * outbound worker.
   */
  async scheduledSend(p: ProjectSetup, i: number, aheadMs = SCHEDULED_AHEAD_MS) {
    const sendAt = new Date(Date.now() + aheadMs).toISOString();
    await ok(await this.svc.send(p.sendToken, { to: this.contact(i), body: `later ${i}`, sendAt }), 'scheduled send');
  }

  /** A poller reading its project's events from the start (a page of them). */
  async poll(p: ProjectSetup) {
    const res = await fetch(`${this.svc.baseUrl}/api/integration/events?limit=100`, {
      headers: { authorization: `Bearer ${p.pollerToken}` },
    });
    await ok(res, 'events poll');
  }

  /** The console's page and the project's portal page (the console function). */
  async consolePage(p: ProjectSetup) {
    await ok(await fetch(`${this.svc.baseUrl}/console/`), 'console page');
    await ok(await fetch(`${this.svc.baseUrl}/portal?project=${p.projectId}`), 'portal page');
  }

  /** A `webhook.test` event to the project's destination webhook: fanned out and delivered into an SQS queue. */
  async destinationDelivery(p: ProjectSetup) {
    const res = await this.svc.admin('POST', `/projects/${p.projectId}/integrations/${p.destinationId}/test`);
    if (res.status !== 202) throw new Error(`webhook test: ${res.status} ${JSON.stringify(res.body)}`);
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
    const message = {
      from,
      id: `wamid.cap${p.label}${i}x${Date.now()}`,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: 'text',
      text: { body: 'oi' },
    };
    const value = { contacts: [{ profile: { name: 'Ana' }, wa_id: from }], messages: [message] };
    const number = { phoneNumberId: `PN${p.label}`, displayNumber: p.whatsapp.address };
    const raw = Buffer.from(JSON.stringify(metaEnvelope(value, number)));
    const res = await sendMetaWebhook(this.svc.baseUrl, p.whatsapp.channelId, 'secret', raw);
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
