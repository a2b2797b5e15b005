import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeSchemaOf } from '#shared/events/index.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startHttpDouble } from './send-doubles.ts';

let svc: ServiceClient;
let receiver: Server;
let receiverUrl: string;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let twilio: Awaited<ReturnType<typeof startHttpDouble>>;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  [svc, twilio] = await Promise.all([
    sharedService(),
    startHttpDouble({ reply: () => ({ status: 500, body: { code: 20500, message: 'Internal Server Error' } }) }),
  ]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), twilio?.close(), new Promise((r) => receiver?.close(r))]);
});

const send = (token: string, body: unknown) => svc.send(token, body);

describe('events of the send endpoint', () => {
  it('delivers message.sent and message.failed on the channel to the project webhook, signed', async () => {
    const { projectId } = await svc.newProject({ companyId: 4242 });
    const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiverUrl,
      eventTypes: ['message.sent', 'message.failed'],
    });
    expect(webhook.status).toBe(201);
    const sandbox = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'Sandbox',
      address: '+5511999990000',
    });
    const failing = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'Twilio',
      address: '+5511999990001',
      provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'secret', baseUrl: twilio.baseUrl },
    });
    const sandboxToken = (
      await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'custom',
        channelId: sandbox.body.channelId,
      })
    ).body.token;
    const failingToken = (
      await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'custom',
        channelId: failing.body.channelId,
      })
    ).body.token;

    const ok = (await (
      await send(sandboxToken, { to: '+5511988887777', body: 'hello', metadata: { order: 1 } })
    ).json()) as any;
    expect((await send(failingToken, { to: '+5511988887777', body: 'will fail' })).status).toBe(502);

    const wh = new Webhook(webhook.body.signingSecret);
    const events = await eventually(async () => {
      const parsed = received
        .map((r) => ({ r, event: JSON.parse(r.body) }))
        .filter(({ event }) => event.projectId === projectId);
      return parsed.length >= 2 ? parsed : undefined;
    });
    for (const { r } of events) {
      expect(() => wh.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    }
    const sent = events.find(({ event }) => event.type === 'message.sent')!.event;
    expect(sent).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'message.sent',
      timestamp: expect.any(String),
      projectId,
      companyId: 4242,
      channel: { id: sandbox.body.channelId, type: 'sms', address: '+5511999990000' },
      data: expect.objectContaining({
        messageId: ok.messageId,
        status: 'sent',
        to: '+5511988887777',
        payload: { to: '+5511988887777', body: 'hello', metadata: { order: 1 } },
      }),
    });
    const failed = events.find(({ event }) => event.type === 'message.failed')!.event;
    expect(failed).toMatchObject({
      type: 'message.failed',
      companyId: 4242,
      channel: { id: failing.body.channelId, type: 'sms', address: '+5511999990001' },
      data: { status: 'failed', provider: 'twilio', error: expect.stringContaining('HTTP 500') },
    });
    expect(JSON.stringify(failed)).not.toContain('secret');
    // What the send publishes is what the event catalog (and /openapi.json's `webhooks`) says.
    for (const event of [sent, failed]) {
      expect(z.safeParse(envelopeSchemaOf(event.type), event).error?.issues ?? [], event.type).toEqual([]);
    }
  });
});
