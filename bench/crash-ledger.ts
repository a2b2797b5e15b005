/**
 * The crash ledger (nothing accepted is lost, through kill -9 at any instant).
 *
 * Drives, all at once and at full speed, what reaches the service from outside: sends (custom token, a Twilio
 * double as the provider), Twilio status callbacks for those sends, signed Twilio inbound messages, signed WhatsApp
 * Cloud inbound messages, inbound mail over SMTP and channel back ends' reports (`POST /events` with an
 * Idempotency-Key). Kills the whole service with SIGKILL at random moments, restarts it on the same data, resends
 * every input that was not acknowledged (as providers and careful clients do), then drains and accounts for every
 * acknowledged input at the webhook:
 *
 *   acknowledged = delivered + failed (its automatic attempts used up; sent again by hand, then delivered) + lost;
 *   duplicates by the same webhook-id (allowed: receivers dedupe); one change under two event ids (never allowed).
 *
 * Webhooks with `ordering: "conversation"` (one per channel) take the `message.received` events: per contact, an input posted
 * after another was acknowledged must reach it after that one (bench/lib/order-ledger.ts counts those overtaken).
 *
 * A second project's webhook is an SQS destination (a queue of the runner's stand-in, its role assumed from the STS
 * stand-in): with `--only sqsDestination,…`, the reports posted to that project are accounted for by the messages
 * read from the queue.
 *
 * Exits 1 on any loss, any change with two ids, or any Twilio or WhatsApp message out of order. `npx tsx bench/crash-ledger.ts --kills 20 --seconds 6`; a short
 * run is part of `npm test` (test/e2e/crash-ledger.test.ts).
 */
import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';
import { createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import twilio from 'twilio';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { deadLetterName, queues } from '#shared/contract/queues.ts';
import type { LocalAws } from '#local/emulators.ts';
import { crashRun, type CrashableService } from '#test/support/crash.ts';
import { localAwsClients, newQueue } from '#test/support/local-aws.ts';
import { startHttpDouble } from '#test/e2e/send-doubles.ts';
import { startReceiver, type TestReceiver } from '#test/e2e/webhooks-support.ts';
import { queueCounts } from './lib/volume-state.ts';
import { formatOrder, type OrderedInput, orderLedger, type OrderRow } from './lib/order-ledger.ts';

export interface LedgerOptions {
  kills: number;
  /** Seconds of traffic between kills (each interval is random, between half and one and a half of it). */
  secondsBetweenKills: number;
  /** Concurrent clients per kind of input. */
  concurrency: number;
  /**
   * After the last restart: how long without any new delivery, and with nothing left on the service's work queues,
   * before what is missing counts as lost.
   */
  drainSeconds: number;
  /**
   * Only these kinds of input (`send`, `status`, `twilioInbound`, `whatsappInbound`, `mail`, `report`,
   * `sqsDestination`, `batch`, `scheduled`).
   */
  only?: string[];
  /** Keeps the data directory, with each run's service output beside it (`service-<n>.log`), to look into a loss. */
  keep?: boolean;
  /** Settings for the service on top of the crash settings (`POWERTOOLS_LOG_LEVEL=INFO` to see every step). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface LedgerRow {
  kind: string;
  acknowledged: number;
  delivered: number;
  lost: number;
  /** Delivered only once its failed delivery was sent again by hand (all automatic attempts had failed). */
  failed: number;
  duplicatesSameId: number;
  /** One input that became two changes: sent again after its acknowledgement was lost, both copies stored. */
  resentTwice: number;
  twoIds: number;
}

export interface Ledger {
  rows: LedgerRow[];
  kills: number;
  duplicatesPerKill: number[];
  lostKeys: string[];
  /** Changes published under more than one event id, with the ids. */
  twoIdKeys: string[];
  /** Deliveries still pending (an automatic attempt to come) when the drain stopped. */
  pendingDeliveries: number;
  /** Deliveries that had used up their automatic attempts, sent again by hand. */
  failedDeliveries: number;
  /** Messages in the service's dead-letter queues when the drain stopped, by queue (only those holding any). */
  deadLetters: Record<string, number>;
  /** Batch items and scheduled sends the provider double received more than once (must be 0). */
  providerTwice: number;
  /** Deferred sends a worker was killed in the middle of: ended `failed`, never sent a second time. */
  abandoned: number;
  /** `message.received` per contact at a second webhook, with `ordering: "conversation"`. */
  order: OrderRow[];
}

/** An input whose acknowledgement promises an event: what identifies that event once it reaches the webhook. */
interface Expected {
  kind: string;
  /** Matches the delivered envelope. */
  key: string;
}

/** Mail's row: its order is counted, but SES and SNS promise none before the mail reaches the ordered lane. */
export const MAIL_KIND = 'mail → message.received';

const sidOf = (body: string) => `SM${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;

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

/** Kinds driven only when `only` names them (the SQS destination's: a second project, its own run). */
const VOLUME_KINDS = ['batch', 'scheduled', 'sqsDestination'];

export async function runCrashLedger(options: LedgerOptions): Promise<Ledger> {
  const log = options.log ?? (() => {});
  const receiver: TestReceiver = await startReceiver();
  // Webhooks ordered by conversation, for the received messages only: what order they reach them in.
  const orderedReceiver: TestReceiver = await startReceiver();
  // Twilio's double names each message by its body, so a send's provider id is known from what was sent.
  const twilioApi = await startHttpDouble({
    reply: (req) => ({
      status: 201,
      body: { sid: sidOf(new URLSearchParams(req.body).get('Body') ?? ''), status: 'queued' },
    }),
  });
  const run = crashRun();
  const port = await freePort();
  const smtpPort = await freePort();
  const env = {
    PORT: String(port),
    SMTP_INBOUND_PORT: String(smtpPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ...options.env,
  };
  const base = `http://127.0.0.1:${port}`;

  let service: CrashableService = await run.start(undefined, env);
  const keepOutput = (n: number | string) => {
    if (options.keep) writeFileSync(join(run.dataDir, `service-${n}.log`), service.process.output());
  };
  const admin = () => service.client;
  const { projectId } = await admin().newProject();
  const webhookId = (
    await admin().admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiver.url,
    })
  ).body.integrationId as string;
  const twilioChannel = (
    await admin().admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'Twilio',
      address: '+15005550006',
      provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok', baseUrl: twilioApi.baseUrl },
    })
  ).body;
  const whatsapp = (
    await admin().admin('POST', `/projects/${projectId}/channels`, {
      type: 'whatsapp',
      name: 'WhatsApp',
      address: '5511999990000',
      provider: { kind: 'whatsapp-cloud', phoneNumberId: 'PN1', accessToken: 'at', appSecret: 'app-secret' },
    })
  ).body;
  const mailbox = `crash-${Date.now()}@mail.example.com`;
  const mailChannel = (
    await admin().admin('POST', `/projects/${projectId}/channels`, { type: 'email', name: 'Mail', address: mailbox })
  ).body;
  // Each channel's received messages also go to a webhook ordered by conversation (a project has one general webhook).
  for (const { channelId } of [twilioChannel, whatsapp, mailChannel]) {
    const ordered = await admin().admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'channel',
      channelId,
      url: orderedReceiver.url,
      ordering: 'conversation',
      eventTypes: ['message.received'],
    });
    if (ordered.status !== 201) throw new Error(`ordered webhook: ${ordered.status} ${JSON.stringify(ordered.body)}`);
  }
  const sendToken = (
    await admin().admin('POST', `/projects/${projectId}/integrations`, {
      product: 'custom',
      channelId: twilioChannel.channelId,
    })
  ).body.token as string;
  // Batch items and scheduled sends leave at a channel's pace: one of their own, paced well above the load.
  const pacedChannel = (
    await admin().admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'Paced',
      address: '+15005550007',
      provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok', baseUrl: twilioApi.baseUrl },
      pace: { perSecond: 200 },
    })
  ).body;
  const pacedToken = (
    await admin().admin('POST', `/projects/${projectId}/integrations`, {
      product: 'custom',
      channelId: pacedChannel.channelId,
    })
  ).body.token as string;
  // A project whose one webhook is an SQS destination: a queue of the runner's stand-in (kept on the data directory
  // across kills, as the customer's queue outlives our service).
  const localAws = async () => (await (await fetch(`${base}/local/aws`)).json()) as LocalAws;
  const sqsProject = (await admin().newProject()).projectId;
  const sqsChannel = (
    await admin().admin('POST', `/projects/${sqsProject}/channels`, {
      type: 'sms',
      name: 'SQS',
      address: '+15005550008',
    })
  ).body.channelId as string;
  const queue = await (async () => {
    const aws = localAwsClients(await localAws());
    try {
      return await newQueue(aws.sqs, `crash-ledger-${Date.now()}`);
    } finally {
      aws.destroy();
    }
  })();
  const sqsHook = await admin().admin('POST', `/projects/${sqsProject}/integrations`, {
    product: 'webhook',
    scope: 'general',
    destination: { type: 'sqs', queueUrl: queue.url, roleArn: 'arn:aws:iam::123456789012:role/crash-ledger' },
  });
  if (sqsHook.status !== 201) throw new Error(`SQS webhook: ${sqsHook.status} ${JSON.stringify(sqsHook.body)}`);
  const sqsWebhookId = sqsHook.body.integrationId as string;
  /** What the SQS destination's queue held, as deliveries (read at the drain; the queue keeps them until then). */
  const fromQueue: TestReceiver['received'] = [];
  const readQueue = async () => {
    const info = await localAws();
    // Each restart gives the stand-in a new port: the queue is found by its name at the current one.
    const sqs = new SQSClient({
      region: info.region,
      endpoint: info.endpoints.sqs,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      useQueueUrlAsEndpoint: false,
    });
    try {
      for (;;) {
        const out = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: 10,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['SentTimestamp'],
          }),
        );
        const messages = out.Messages ?? [];
        if (!messages.length) return;
        for (const m of messages) {
          const arrivedAt = Number(m.Attributes?.SentTimestamp ?? Date.now());
          fromQueue.push({
            at: arrivedAt,
            arrivedAt,
            headers: { 'webhook-id': m.MessageAttributes?.['webhook-id']?.StringValue ?? '' },
            body: m.Body!,
            json: JSON.parse(m.Body!),
          });
        }
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.url,
            Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
      }
    } finally {
      sqs.destroy();
    }
  };

  /**
   * What the service's own queues still hold (visible, in flight or delayed), work queues and dead-letter queues
   * apart: the drain waits while work is left, since a restarted service on a loaded machine may take longer than
   * `drainSeconds` to reach a job (an outbound job postponed until a dead worker's claim is stale, a backlog of events).
   */
  const serviceQueues = async (): Promise<{ work: number; dead: Record<string, number> }> => {
    const info = await localAws();
    const sqs = new SQSClient({
      region: info.region,
      endpoint: info.endpoints.sqs,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      useQueueUrlAsEndpoint: false,
    });
    try {
      const held = async (name: string) => {
        const c = await queueCounts(sqs, name);
        return c.visible + c.inFlight + c.delayed;
      };
      let work = 0;
      const dead: Record<string, number> = {};
      for (const q of Object.values(queues)) {
        work += await held(q.localName);
        const letters = await held(deadLetterName(q));
        if (letters) dead[deadLetterName(q)] = letters;
      }
      return { work, dead };
    } finally {
      sqs.destroy();
    }
  };

  const expected: Expected[] = [];
  const acknowledged = new Map<string, number>();
  const orderedInputs: OrderedInput[] = [];
  /** An acknowledged input; a received message's contact and first attempt, for its place in the contact's order. */
  const ack = (kind: string, key: string, order?: { contact: string; sentAt: number }) => {
    expected.push({ kind, key });
    acknowledged.set(kind, (acknowledged.get(kind) ?? 0) + 1);
    if (order) orderedInputs.push({ kind, key, ...order, ackAt: Date.now() });
  };
  /** Sent messages with their provider id, waiting for a status callback. */
  const sentSids: { messageId: string; sid: string }[] = [];
  let stopping = false;
  let seq = 0;

  /** Runs `attempt` until it is acknowledged (retrying across restarts, as a provider does), or the run ends. */
  async function untilAcknowledged(attempt: () => Promise<boolean>): Promise<boolean> {
    for (;;) {
      try {
        if (await attempt()) return true;
      } catch {
        // No answer: the service is down, or died mid-request. The sender tries again.
      }
      if (stopping) return false;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const twilioPost = (path: string, params: Record<string, string>) => {
    const url = `${base}${path}`;
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature('tok', url, params),
      },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(10_000),
    });
  };

  const drivers: Record<string, () => Promise<void>> = {
    async send() {
      const n = ++seq;
      const idempotencyKey = `send-${n}`;
      let messageId = '';
      const ok = await untilAcknowledged(async () => {
        const res = await fetch(`${base}/api/integration/generic`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${sendToken}`,
            'content-type': 'application/json',
            'idempotency-key': idempotencyKey,
          },
          body: JSON.stringify({ to: '+5511988887777', body: `send ${n}` }),
          signal: AbortSignal.timeout(15_000),
        });
        if (res.status !== 200) return false;
        messageId = ((await res.json()) as { messageId: string }).messageId;
        return true;
      });
      if (!ok) return;
      ack('send → message.sent', `message.sent:${messageId}`);
      sentSids.push({ messageId, sid: sidOf(`send ${n}`) });
    },
    // A batch of 5 (its Idempotency-Key resent until answered): each queued item must end sent or failed, once.
    async batch() {
      const n = ++seq;
      let ids: string[] = [];
      const ok = await untilAcknowledged(async () => {
        const res = await fetch(`${base}/api/integration/generic/batch`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${pacedToken}`,
            'content-type': 'application/json',
            'idempotency-key': `batch-${n}`,
          },
          body: JSON.stringify({
            messages: Array.from({ length: 5 }, (_, i) => ({ to: '+5511988887777', body: `batch ${n} ${i}` })),
          }),
          signal: AbortSignal.timeout(15_000),
        });
        if (res.status !== 202) return false;
        ids = ((await res.json()) as { items: { messageId: string }[] }).items.map((i) => i.messageId);
        return true;
      });
      if (ok) for (const id of ids) ack('batch item → sent or failed', `outcome:${id}`);
    },
    // A send scheduled a minute ahead (the shortest allowed): it must leave once, through the kills.
    async scheduled() {
      const n = ++seq;
      let messageId = '';
      const sendAt = new Date(Date.now() + 61_000).toISOString();
      const ok = await untilAcknowledged(async () => {
        const res = await fetch(`${base}/api/integration/generic`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${pacedToken}`,
            'content-type': 'application/json',
            'idempotency-key': `scheduled-${n}`,
          },
          body: JSON.stringify({ to: '+5511988887777', body: `sched ${n}`, sendAt }),
          signal: AbortSignal.timeout(15_000),
        });
        if (res.status !== 202) return false;
        messageId = ((await res.json()) as { messageId: string }).messageId;
        return true;
      });
      if (ok) ack('scheduled send → sent or failed', `outcome:${messageId}`);
      await new Promise((r) => setTimeout(r, 200));
    },
    async status() {
      const sent = sentSids.shift();
      if (!sent) return void (await new Promise((r) => setTimeout(r, 50)));
      const ok = await untilAcknowledged(async () => {
        const res = await twilioPost(`/inbound/twilio/${twilioChannel.channelId}`, {
          AccountSid: 'AC1',
          MessageSid: sent.sid,
          MessageStatus: 'delivered',
          To: '+5511988887777',
          From: '+15005550006',
        });
        return res.status === 200;
      });
      if (ok) ack('status callback → message.delivered', `message.delivered:${sent.messageId}`);
    },
    async twilioInbound() {
      const messageSid = `SMin${++seq}x${Date.now()}`;
      const sentAt = Date.now();
      const ok = await untilAcknowledged(async () => {
        const res = await twilioPost(`/inbound/twilio/${twilioChannel.channelId}`, {
          AccountSid: 'AC1',
          MessageSid: messageSid,
          From: '+5511988887777',
          To: '+15005550006',
          Body: 'hello',
          NumMedia: '0',
        });
        return res.status === 200;
      });
      if (ok)
        ack('Twilio inbound → message.received', `message.received:${messageSid}`, {
          contact: 'twilio:+5511988887777',
          sentAt,
        });
    },
    async whatsappInbound() {
      const wamid = `wamid.crash${++seq}x${Date.now()}`;
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
                  metadata: { display_phone_number: '5511999990000', phone_number_id: 'PN1' },
                  contacts: [{ profile: { name: 'Ana' }, wa_id: '5511988887777' }],
                  messages: [
                    {
                      from: '5511988887777',
                      id: wamid,
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
      const signature = `sha256=${createHmac('sha256', 'app-secret').update(body).digest('hex')}`;
      const sentAt = Date.now();
      const ok = await untilAcknowledged(async () => {
        const res = await fetch(`${base}/inbound/whatsapp/${whatsapp.channelId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        return res.status === 200;
      });
      if (ok)
        ack('WhatsApp inbound → message.received', `message.received:${wamid}`, {
          contact: 'whatsapp:5511988887777',
          sentAt,
        });
    },
    async mail() {
      const subject = `crash mail ${++seq} ${Date.now()}`;
      const messageId = `<${seq}.${Date.now()}@ledger.example.org>`;
      // One SMTP transaction: 250 is the acknowledgement. A mail refused or cut off is sent again as a new mail
      // (a transport retry is a new delivery), so only a 250 counts.
      const sentAt = Date.now();
      const ok = await untilAcknowledged(async () => {
        const transport = nodemailer.createTransport({
          host: '127.0.0.1',
          port: smtpPort,
          secure: false,
          ignoreTLS: true,
          connectionTimeout: 5_000,
          socketTimeout: 10_000,
        });
        try {
          // The same message each time, as an MTA retries it (same Message-ID): the transport may still store it twice.
          await transport.sendMail({ from: 'ana@example.org', to: mailbox, subject, text: 'hello by mail', messageId });
          return true;
        } finally {
          transport.close();
        }
      });
      if (ok) ack(MAIL_KIND, `message.received:subject:${subject}`, { contact: 'mail:ana', sentAt });
    },
    async report() {
      const marker = `report-${++seq}`;
      const ok = await untilAcknowledged(async () => {
        const res = await fetch(`${base}/admin/v1/projects/${projectId}/events`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${service.process.adminKey}`,
            'content-type': 'application/json',
            'idempotency-key': marker,
          },
          body: JSON.stringify({ channelId: twilioChannel.channelId, type: 'message.failed', data: { marker } }),
          signal: AbortSignal.timeout(10_000),
        });
        return res.status === 202;
      });
      if (ok) ack('POST /events → event', `message.failed:marker:${marker}`);
    },
    async sqsDestination() {
      const marker = `sqs-${++seq}`;
      const ok = await untilAcknowledged(async () => {
        const res = await fetch(`${base}/admin/v1/projects/${sqsProject}/events`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${service.process.adminKey}`,
            'content-type': 'application/json',
            'idempotency-key': marker,
          },
          body: JSON.stringify({ channelId: sqsChannel, type: 'message.failed', data: { marker } }),
          signal: AbortSignal.timeout(10_000),
        });
        return res.status === 202;
      });
      if (ok) ack('POST /events → SQS destination', `message.failed:marker:${marker}`);
    },
  };

  const loops = Object.entries(drivers)
    // Batch items and scheduled sends (a minute ahead at least) only when named: the short run of `npm test` drains
    // for less than a scheduled send waits.
    .filter(([name]) => (options.only ? options.only.includes(name) : !VOLUME_KINDS.includes(name)))
    .flatMap(([, drive]) =>
      Array.from({ length: options.concurrency }, async () => {
        while (!stopping) await drive();
      }),
    );

  const killedAt: number[] = [];
  for (let kill = 1; kill <= options.kills; kill++) {
    const wait = options.secondsBetweenKills * (0.5 + Math.random()) * 1000;
    await new Promise((r) => setTimeout(r, wait));
    service.process.child.kill('SIGKILL');
    killedAt.push(Date.now());
    await service.died();
    keepOutput(kill);
    log(`kill ${kill}: ${expected.length} acknowledged so far, ${receiver.received.length} deliveries`);
    service = await run.start(undefined, env);
  }
  // Let the inputs in flight finish (acknowledged or not), then stop sending.
  await new Promise((r) => setTimeout(r, options.secondsBetweenKills * 1000));
  stopping = true;
  await Promise.all(loops);

  const keyOf = (json: { type: string; data: Record<string, unknown> }): string[] => {
    const d = json.data;
    const keys = [`${json.type}:${String(d.messageId)}`];
    // A deferred send's outcome: sent, or failed (refused then, or found mid-send after a kill: never sent again).
    if (json.type === 'message.sent' || json.type === 'message.failed') keys.push(`outcome:${String(d.messageId)}`);
    if (d.providerMessageId) keys.push(`${json.type}:${String(d.providerMessageId)}`);
    if (d.subject) keys.push(`${json.type}:subject:${String(d.subject)}`);
    if (d.marker) keys.push(`${json.type}:marker:${String(d.marker)}`);
    return keys;
  };
  /** Each event key with the time its first delivery reached the ordered webhook. */
  const orderedArrivals = () => {
    const first = new Map<string, number>();
    for (const r of [...orderedReceiver.received].sort((a, b) => a.arrivedAt - b.arrivedAt))
      for (const key of keyOf(r.json as never)) if (!first.has(key)) first.set(key, r.arrivedAt);
    return first;
  };
  // Drain: until every acknowledged input has its event (and every received message its delivery to the ordered
  // webhook), or nothing new arrived for `drainSeconds` while the service's work queues held nothing (the backlog a
  // run of kills leaves is worked through as long as deliveries keep coming or work is queued), or half an hour.
  let deadLetters: Record<string, number> = {};
  const drain = async (): Promise<number> => {
    const cap = Date.now() + 30 * 60_000;
    let lastCount = -1;
    let lastProgress = Date.now();
    for (;;) {
      await readQueue().catch((error: unknown) => log(`reading the SQS destination's queue: ${String(error)}`));
      const seen = new Set([...receiver.received, ...fromQueue].flatMap((r) => keyOf(r.json as never)));
      const arrived = orderedArrivals();
      const missing =
        expected.filter((e) => !seen.has(e.key)).length + orderedInputs.filter((i) => !arrived.has(i.key)).length;
      if (missing === 0 || Date.now() > cap) return missing;
      const count = receiver.received.length + orderedReceiver.received.length + fromQueue.length;
      if (count !== lastCount) {
        lastCount = count;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress > options.drainSeconds * 1000) {
        const queued = await serviceQueues().catch((error: unknown) => {
          log(`reading the service's queues: ${String(error)}`);
          return { work: 0, dead: deadLetters };
        });
        deadLetters = queued.dead;
        if (!queued.work) return missing;
        // Work still queued: what is missing may be in it. Waited for like a delivery (until the cap).
        log(`drain: no new delivery for ${options.drainSeconds} s, ${queued.work} jobs still on the service's queues`);
        lastProgress = Date.now() - (options.drainSeconds * 1000) / 2;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  // A delivery that used up its automatic attempts is `failed`, not lost: kept with every attempt, and sent again on
  // request. With events still missing, the failed deliveries are sent again by hand, as an operator
  // would, and what arrives then counts as failed (recovered), never as delivered.
  const failedDeliveries: {
    deliveryId: string;
    eventType: string;
    attempts: { statusCode?: number; error?: string }[];
    /** The webhook's path (`/projects/…/integrations/…`). */
    hook: string;
  }[] = [];
  let recoveredFrom = Number.POSITIVE_INFINITY;
  let recoveredFromQueue = Number.POSITIVE_INFINITY;
  const hooks = [
    `/projects/${projectId}/integrations/${webhookId}`,
    `/projects/${sqsProject}/integrations/${sqsWebhookId}`,
  ];
  const deliveriesIn = async (status: 'failed' | 'pending') => {
    const found: typeof failedDeliveries = [];
    for (const hook of hooks) {
      let cursor: string | undefined;
      do {
        const page = await admin().admin(
          'GET',
          `${hook}/deliveries?status=${status}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        found.push(...(page.body.items ?? []).map((d: object) => ({ ...d, hook })));
        cursor = page.body.nextCursor;
      } while (cursor);
    }
    return found;
  };
  if ((await drain()) > 0) {
    failedDeliveries.push(...(await deliveriesIn('failed')));
    if (failedDeliveries.length) {
      const why = new Map<string, number>();
      for (const d of failedDeliveries) {
        const last = d.attempts.at(-1);
        const reason = last?.error ?? `HTTP ${last?.statusCode ?? '?'}`;
        why.set(reason, (why.get(reason) ?? 0) + 1);
      }
      log(
        `${failedDeliveries.length} failed deliveries (last attempt: ${[...why].map(([r, n]) => `${n}× ${r}`).join('; ')}): sent again`,
      );
      recoveredFrom = receiver.received.length;
      recoveredFromQueue = fromQueue.length;
      for (const d of failedDeliveries) await admin().admin('POST', `${d.hook}/deliveries/${d.deliveryId}/retry`);
      await drain();
    }
  }
  // The ledger. What one event is about (its change) is its message (the id the service derived from the change), or
  // for a reported event, its id (fixed by the Idempotency-Key). One change under two event ids is never allowed;
  // one input that became two changes (a mail sent again after its 250 was lost, both copies stored: two deliveries
  // to the transport) is counted apart.
  const changeOf = (json: { id: string; type: string; data: Record<string, unknown> }) =>
    json.data.messageId ? `${json.type}:${String(json.data.messageId)}` : `event:${json.id}`;
  const byKey = new Map<string, Map<string, Set<string>>>();
  const copies = new Map<string, number>();
  const beforeRecovery = new Set(
    [...receiver.received.slice(0, recoveredFrom), ...fromQueue.slice(0, recoveredFromQueue)].flatMap((r) =>
      keyOf(r.json as never),
    ),
  );
  const received = [...receiver.received, ...fromQueue];
  for (const delivery of received) {
    const json = delivery.json as { id: string; type: string; data: Record<string, unknown> };
    for (const key of keyOf(json)) {
      const changes = byKey.get(key) ?? new Map<string, Set<string>>();
      const ids = changes.get(changeOf(json)) ?? new Set<string>();
      ids.add(json.id);
      changes.set(changeOf(json), ids);
      byKey.set(key, changes);
      copies.set(key, (copies.get(key) ?? 0) + 1);
    }
  }
  const rows = new Map<string, LedgerRow>();
  const lostKeys: string[] = [];
  const twoIdKeys: string[] = [];
  for (const e of expected) {
    const row = rows.get(e.kind) ?? {
      kind: e.kind,
      acknowledged: 0,
      delivered: 0,
      lost: 0,
      failed: 0,
      duplicatesSameId: 0,
      resentTwice: 0,
      twoIds: 0,
    };
    rows.set(e.kind, row);
    row.acknowledged++;
    const changes = byKey.get(e.key);
    if (!changes) {
      row.lost++;
      lostKeys.push(e.key);
      continue;
    }
    if (beforeRecovery.has(e.key)) row.delivered++;
    else row.failed++;
    if (changes.size > 1) row.resentTwice++;
    const ids = [...changes.values()].reduce((n, set) => n + set.size, 0);
    for (const [change, set] of changes)
      if (set.size > 1) {
        row.twoIds++;
        twoIdKeys.push(`${e.key} (${change}) → ${[...set].join(' ')}`);
      }
    row.duplicatesSameId += (copies.get(e.key) ?? 1) - ids;
  }
  // Duplicates per kill: a delivery of a webhook-id already delivered, counted against the last kill before it.
  const duplicatesPerKill = killedAt.map(() => 0);
  const delivered = new Set<string>();
  for (const delivery of received) {
    const id = String(delivery.headers['webhook-id']);
    if (delivered.has(id)) {
      const k = killedAt.findLastIndex((t) => t <= delivery.arrivedAt);
      if (k >= 0) duplicatesPerKill[k]!++;
    } else delivered.add(id);
  }

  // Deliveries still waiting for an automatic attempt when the drain stopped (each one an event not yet at the webhook).
  const pendingDeliveries = (await deliveriesIn('pending')).length;
  deadLetters = await serviceQueues().then(
    (q) => q.dead,
    () => deadLetters,
  );
  keepOutput('last');
  if (options.keep) {
    await service.stop();
    log(`data and service output kept in ${run.dataDir}`);
  } else await run.cleanUp();
  const order = orderLedger(orderedInputs, orderedArrivals());
  await receiver.close();
  await orderedReceiver.close();
  // What the provider got more than once, of the batch items and scheduled sends (their bodies are unique).
  const bodies = new Map<string, number>();
  for (const r of twilioApi.requests) {
    const body = new URLSearchParams(r.body).get('Body') ?? '';
    if (body.startsWith('batch ') || body.startsWith('sched ')) bodies.set(body, (bodies.get(body) ?? 0) + 1);
  }
  // A body the double got more often than messages may have reached it with: a batch resent after its answer was
  // lost becomes a second batch (new message ids, "resent, both kept"), which is not one message sent twice. A
  // message may have reached the provider when it was sent, or when it was found mid-send after a kill (ended failed,
  // "the provider may or may not have it").
  const messagesByBody = new Map<string, Set<string>>();
  for (const r of receiver.received) {
    const json = r.json as {
      type?: string;
      data?: { messageId?: string; payload?: { body?: string }; error?: { message?: string } };
    };
    const body = json?.data?.payload?.body;
    const midSend = json?.type === 'message.failed' && String(json.data?.error?.message ?? '').includes('stopped');
    if ((json?.type === 'message.sent' || midSend) && body)
      messagesByBody.set(body, (messagesByBody.get(body) ?? new Set()).add(String(json.data?.messageId)));
  }
  const providerTwice = [...bodies.entries()].filter(
    ([b, c]) => c > Math.max(1, messagesByBody.get(b)?.size ?? 0),
  ).length;
  const abandoned = receiver.received.filter(
    (r) =>
      (r.json as { type?: string; data?: { error?: { message?: string } } })?.type === 'message.failed' &&
      String((r.json as { data?: { error?: { message?: string } } }).data?.error?.message ?? '').includes('stopped'),
  ).length;
  await twilioApi.close();
  return {
    providerTwice,
    abandoned,
    rows: [...rows.values()],
    kills: options.kills,
    duplicatesPerKill,
    lostKeys,
    twoIdKeys,
    pendingDeliveries,
    failedDeliveries: failedDeliveries.length,
    deadLetters,
    order,
  };
}

/** The ledger as a table. */
export function formatLedger(ledger: Ledger): string {
  const header = [
    'input',
    'acknowledged',
    'delivered',
    'failed, recovered',
    'lost',
    'dup same id',
    'resent, both kept',
    'two ids',
  ];
  const cells = (r: LedgerRow) => [
    r.acknowledged,
    r.delivered,
    r.failed,
    r.lost,
    r.duplicatesSameId,
    r.resentTwice,
    r.twoIds,
  ];
  const lines = ledger.rows.map((r) => [r.kind, ...cells(r)].map(String));
  const total = ledger.rows.reduce((t, r) => cells(r).map((n, i) => t[i]! + n), [0, 0, 0, 0, 0, 0, 0]);
  lines.push(['all', ...total.map(String)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    `${ledger.kills} kills; duplicates (same webhook-id) after each: ${ledger.duplicatesPerKill.join(', ')}`,
    `batch items and scheduled sends the provider got twice: ${ledger.providerTwice}; found mid-send after a kill ` +
      `(ended failed, never sent again): ${ledger.abandoned}`,
    `deliveries failed (sent again by hand): ${ledger.failedDeliveries}; still pending when the drain stopped: ${ledger.pendingDeliveries}`,
    `in the service's dead-letter queues: ${
      Object.entries(ledger.deadLetters)
        .map(([q, n]) => `${q} ${n}`)
        .join(', ') || 'none'
    }`,
    fmt(header),
    ...lines.map(fmt),
    '',
    formatOrder(ledger.order),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      kills: { type: 'string', default: '20' },
      seconds: { type: 'string', default: '6' },
      concurrency: { type: 'string', default: '4' },
      drain: { type: 'string', default: '100' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'log-level': { type: 'string' },
    },
  });
  const ledger = await runCrashLedger({
    kills: Number(values.kills),
    secondsBetweenKills: Number(values.seconds),
    concurrency: Number(values.concurrency),
    drainSeconds: Number(values.drain),
    ...(values.only ? { only: values.only.split(',') } : {}),
    keep: values.keep,
    ...(values['log-level'] ? { env: { POWERTOOLS_LOG_LEVEL: values['log-level'] } } : {}),
    log: (line) => console.log(line),
  });
  console.log(formatLedger(ledger));
  if (ledger.lostKeys.length) console.log(`lost: ${ledger.lostKeys.slice(0, 20).join(', ')}`);
  if (ledger.twoIdKeys.length) console.log(`two ids:\n${ledger.twoIdKeys.slice(0, 20).join('\n')}`);
  const bad =
    ledger.rows.some((r) => r.lost > 0 || r.twoIds > 0) ||
    ledger.providerTwice > 0 ||
    ledger.order.some((r) => r.outOfOrder > 0 && r.kind !== MAIL_KIND);
  process.exit(bad ? 1 : 0);
}
