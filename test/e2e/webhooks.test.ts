import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eventually, consistently } from '#test/support/eventually.ts';
import { webhookHeaders } from './webhooks-support.ts';
import { svc, receiver, project, useWebhooksService } from './webhooks-project.ts';

/** Webhook delivery through the local runner, as a receiver sees it: who gets what, signed, retried, logged. */
useWebhooksService();

describe('webhook delivery through the local runner', () => {
  it('delivers an event to the union of applicable webhooks, each once, signed, and to no other', async () => {
    const p = await project();
    const sms = await p.channel('sms');
    const email = await p.channel('email', 'support@example.com');
    const [general, forSms, forEmail] = await Promise.all([receiver(), receiver(), receiver()]);
    const g = await p.webhook({ scope: 'general', url: general.url });
    const s = await p.webhook({ scope: 'channel', channelId: sms.channelId, url: forSms.url });
    await p.webhook({ scope: 'channel', channelId: email.channelId, url: forEmail.url });

    const eventId = await p.event(sms.channelId, 'message.sent', { messageId: 'msg_123', to: '+5511888887777' });
    const [toGeneral] = await general.waitFor(1);
    const [toSms] = await forSms.waitFor(1);
    await consistently(() => expect(general.received).toHaveLength(1), 500);
    expect(forSms.received).toHaveLength(1);
    expect(forEmail.received).toHaveLength(0);

    for (const [delivery, secret] of [
      [toGeneral!, g.signingSecret],
      [toSms!, s.signingSecret],
    ] as const) {
      expect(new Webhook(secret).verify(delivery.body, webhookHeaders(delivery))).toEqual(delivery.json);
      expect(delivery.headers['webhook-id']).toBe(eventId);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['user-agent']).toMatch(/^Switchboard\/\d+\.\d+\.\d+$/);
      expect(delivery.headers.authorization).toBeUndefined();
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      expect(delivery.json).toEqual({
        id: eventId,
        type: 'message.sent',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        projectId: p.projectId,
        companyId: 1042,
        channel: { id: sms.channelId, type: 'sms', address: '+5511999990000' },
        data: { messageId: 'msg_123', to: '+5511888887777' },
      });
    }
    // The general webhook's signature does not verify under the channel webhook's secret.
    expect(() => new Webhook(s.signingSecret).verify(toGeneral!.body, webhookHeaders(toGeneral!))).toThrow();
  });

  it('sends the configured bearer token, and no Authorization header without one', async () => {
    const p = await project();
    const ch = await p.channel();
    const [withToken, without] = await Promise.all([receiver(), receiver()]);
    await p.webhook({ scope: 'general', url: withToken.url, bearerToken: 'tok_abc123' });
    await p.webhook({ scope: 'channel', channelId: ch.channelId, url: without.url });
    await p.event(ch.channelId);
    const [a] = await withToken.waitFor(1);
    const [b] = await without.waitFor(1);
    expect(a!.headers.authorization).toBe('Bearer tok_abc123');
    expect(b!.headers.authorization).toBeUndefined();
  });

  it('retries a failing receiver until it succeeds, with the same webhook-id, and lists every attempt', async () => {
    const p = await project();
    const ch = await p.channel();
    const flaky = await receiver((_d, i) => (i < 2 ? 503 : 200));
    const w = await p.webhook({ scope: 'general', url: flaky.url });
    const eventId = await p.event(ch.channelId);
    const got = await flaky.waitFor(3);
    expect(got.map((d) => d.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    for (const d of got) expect(new Webhook(w.signingSecret).verify(d.body, webhookHeaders(d))).toBeTruthy();
    expect(new Set(got.map((d) => d.body)).size).toBe(1);
    const [delivery] = await eventually(async () => {
      const items = await p.deliveries(w.integrationId);
      return items[0]?.status === 'succeeded' ? items : undefined;
    });
    expect(delivery).toMatchObject({
      eventId,
      eventType: 'message.sent',
      status: 'succeeded',
      deliveryId: expect.stringMatching(/^dlv_/),
    });
    expect(delivery.attempts.map((a: any) => a.statusCode)).toEqual([503, 503, 200]);
    expect(delivery.attempts[0]).toEqual({
      at: expect.any(String),
      statusCode: 503,
      durationMs: expect.any(Number),
      error: 'HTTP 503',
    });
    expect(delivery.attempts[2].error).toBeUndefined();
    expect(delivery.nextAttemptAt).toBeUndefined();
    await consistently(() => expect(flaky.received).toHaveLength(3), 500);
  });

  it('disables a webhook whose receiver answers 410, and sends it nothing more', async () => {
    const p = await project();
    const ch = await p.channel();
    const gone = await receiver(() => 410);
    const w = await p.webhook({ scope: 'general', url: gone.url });
    await p.event(ch.channelId);
    await gone.waitFor(1);
    const integration = await eventually(async () => {
      const res = await svc.admin('GET', `/projects/${p.projectId}/integrations/${w.integrationId}`);
      return res.body.enabled === false ? res.body : undefined;
    });
    expect(integration).toMatchObject({ enabled: false, disabledReason: 'gone' });
    // The delivery's record and the webhook's disabling are two writes after the 410: either may land first.
    const delivery = await eventually(async () => {
      const [item] = await p.deliveries(w.integrationId);
      return item?.status === 'failed' ? item : undefined;
    });
    expect(delivery).toMatchObject({ status: 'failed', attempts: [{ statusCode: 410 }] });
    await p.event(ch.channelId);
    await consistently(() => expect(gone.received).toHaveLength(1), 800);
  });

  it('respects the event type filter', async () => {
    const p = await project();
    const ch = await p.channel();
    const r = await receiver();
    await p.webhook({ scope: 'general', url: r.url, eventTypes: ['message.read', 'message.failed'] });
    await p.event(ch.channelId, 'message.sent');
    const read = await p.event(ch.channelId, 'message.read');
    const [got] = await r.waitFor(1);
    await consistently(() => expect(r.received).toHaveLength(1), 500);
    expect(got!.json).toMatchObject({ id: read, type: 'message.read' });
  });

  it('sends a webhook.test event to that webhook only', async () => {
    const p = await project();
    const ch = await p.channel();
    const [target, other] = await Promise.all([receiver(), receiver()]);
    const w = await p.webhook({
      scope: 'channel',
      channelId: ch.channelId,
      url: target.url,
      eventTypes: ['message.read'],
    });
    await p.webhook({ scope: 'general', url: other.url });
    const res = await svc.admin('POST', `/projects/${p.projectId}/integrations/${w.integrationId}/test`);
    expect(res.status).toBe(202);
    expect(res.body.eventId).toMatch(/^evt_/);
    const [got] = await target.waitFor(1);
    expect(got!.json).toMatchObject({
      id: res.body.eventId,
      type: 'webhook.test',
      projectId: p.projectId,
      channel: { id: ch.channelId },
    });
    expect(new Webhook(w.signingSecret).verify(got!.body, webhookHeaders(got!))).toBeTruthy();
    await consistently(() => expect(other.received).toHaveLength(0), 500);
    expect((await svc.admin('POST', `/projects/${p.projectId}/integrations/int_missing/test`)).status).toBe(404);
  });

  it('marks a delivery failed after the last attempt, lists it, and a manual retry appends an attempt', async () => {
    const p = await project();
    const ch = await p.channel();
    let healthy = false;
    const down = await receiver(() => (healthy ? 200 : 500));
    const w = await p.webhook({ scope: 'general', url: down.url });
    const eventId = await p.event(ch.channelId);
    await down.waitFor(4);
    const failed = await eventually(async () => {
      const items = await p.deliveries(w.integrationId, '?status=failed');
      return items.length ? items[0] : undefined;
    });
    expect(failed).toMatchObject({ eventId, status: 'failed' });
    expect(failed.attempts).toHaveLength(4);
    expect(failed.nextAttemptAt).toBeUndefined();
    await consistently(() => expect(down.received).toHaveLength(4), 600);
    expect(await p.deliveries(w.integrationId, '?status=succeeded')).toEqual([]);

    healthy = true;
    const retry = await svc.admin(
      'POST',
      `/projects/${p.projectId}/integrations/${w.integrationId}/deliveries/${failed.deliveryId}/retry`,
    );
    expect(retry.status).toBe(202);
    const got = await down.waitFor(5);
    expect(got[4]!.headers['webhook-id']).toBe(eventId);
    expect(got[4]!.body).toBe(got[0]!.body);
    expect(new Webhook(w.signingSecret).verify(got[4]!.body, webhookHeaders(got[4]!))).toBeTruthy();
    const after = await eventually(async () => {
      const [item] = await p.deliveries(w.integrationId);
      return item?.status === 'succeeded' ? item : undefined;
    });
    expect(after.deliveryId).toBe(failed.deliveryId);
    expect(after.attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 500, 200]);
    const unknown = await svc.admin(
      'POST',
      `/projects/${p.projectId}/integrations/${w.integrationId}/deliveries/dlv_nope/retry`,
    );
    expect(unknown.status).toBe(404);
  });

  it("retries by hand a message-sized event's deliveries to two webhooks with the very bytes first sent", async () => {
    const p = await project();
    const ch = await p.channel();
    let healthy = false;
    const a = await receiver(() => (healthy ? 200 : 500));
    const b = await receiver(() => (healthy ? 200 : 500));
    const general = await p.webhook({ scope: 'general', url: a.url });
    const scoped = await p.webhook({ scope: 'channel', channelId: ch.channelId, url: b.url });
    // Larger than a delivery record keeps: the body is stored once for both webhooks.
    const eventId = await p.event(ch.channelId, 'message.received', {
      messageId: 'msg_big',
      text: 'Olá! '.repeat(300),
    });
    await Promise.all([a.waitFor(4), b.waitFor(4)]);
    healthy = true;
    for (const [w, r] of [
      [general, a],
      [scoped, b],
    ] as const) {
      const failed = await eventually(async () => (await p.deliveries(w.integrationId, '?status=failed'))[0]);
      const retry = await svc.admin(
        'POST',
        `/projects/${p.projectId}/integrations/${w.integrationId}/deliveries/${failed.deliveryId}/retry`,
      );
      expect(retry.status).toBe(202);
      const got = await r.waitFor(5);
      expect(got[4]!.headers['webhook-id']).toBe(eventId);
      expect(got[4]!.body).toBe(got[0]!.body);
      expect(JSON.parse(got[4]!.body).data.text).toBe('Olá! '.repeat(300));
      expect(new Webhook(w.signingSecret).verify(got[4]!.body, webhookHeaders(got[4]!))).toBeTruthy();
    }
  });

  it('signs with both secrets after a rotation, so receivers holding either verify', async () => {
    const p = await project();
    const ch = await p.channel();
    const r = await receiver();
    const w = await p.webhook({ scope: 'general', url: r.url });
    const rotated = await svc.admin('POST', `/projects/${p.projectId}/integrations/${w.integrationId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingSecret).not.toBe(w.signingSecret);
    await p.event(ch.channelId);
    const [got] = await r.waitFor(1);
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(w.signingSecret).verify(got!.body, webhookHeaders(got!))).toBeTruthy();
    expect(new Webhook(rotated.body.signingSecret).verify(got!.body, webhookHeaders(got!))).toBeTruthy();
  });

  it('sends nothing to a disabled webhook', async () => {
    const p = await project();
    const ch = await p.channel();
    const [disabled, enabled] = await Promise.all([receiver(), receiver()]);
    const off = await p.webhook({ scope: 'general', url: disabled.url });
    await p.webhook({ scope: 'channel', channelId: ch.channelId, url: enabled.url });
    const patched = await svc.admin('PATCH', `/projects/${p.projectId}/integrations/${off.integrationId}`, {
      enabled: false,
    });
    expect(patched.status).toBe(200);
    await p.event(ch.channelId);
    await p.event(ch.channelId, 'message.delivered');
    await enabled.waitFor(2);
    await consistently(() => expect(disabled.received).toHaveLength(0), 500);
    expect(await p.deliveries(off.integrationId)).toEqual([]);
  });

  it('keeps delivering to a healthy receiver while another one hangs', async () => {
    const p = await project();
    const ch = await p.channel();
    const [hanging, healthy] = await Promise.all([receiver(() => 'hang'), receiver()]);
    await p.webhook({ scope: 'general', url: hanging.url });
    const h = await p.webhook({ scope: 'channel', channelId: ch.channelId, url: healthy.url });
    // 60 events, 6 producers at once: without the per-destination limit the hanging receiver's attempts would hold
    // every deliver batch (20 at a time) for the 15 s deadline, and healthy deliveries would wait behind them.
    const events = 60;
    await Promise.all(
      Array.from({ length: 6 }, async (_, producer) => {
        // Each producer its own conversation, as a chat back end's traffic is: events without one share their
        // channel's order key, and one key's events are fanned out one batch after another.
        for (let i = 0; i < events / 6; i++)
          await p.event(ch.channelId, 'message.sent', { producer, i, conversationId: `conv_producer${producer}` });
      }),
    );
    await healthy.waitFor(events, 12_000);
    const latencies = healthy.received.map((d) => d.at - Date.parse(d.json.timestamp)).sort((a, b) => a - b);
    // A healthy delivery held behind a hanging attempt would wait out that attempt's deadline (15 s in this group):
    // the bounds sit well below it and leave room for a loaded two-core machine (the slowest seen there: 7.4 s).
    expect(latencies.at(-1)).toBeLessThan(10_000);
    expect(latencies[Math.floor(latencies.length * 0.95)]).toBeLessThan(5_000);
    // The hanging receiver was sent its share and held it (deadline 15 s), never more at once than the limit (10).
    expect(hanging.received.length).toBeGreaterThan(0);
    expect(hanging.maxOpen()).toBeLessThanOrEqual(10);
    // Each record is written right after its receiver answered: wait for the last writes.
    const items = await eventually(async () => {
      const list = await p.deliveries(h.integrationId, '?limit=100');
      return list.length === events && list.every((d) => d.status === 'succeeded') ? list : undefined;
    });
    // Newest first.
    const ns = items.map((d) => d.eventId);
    expect([...ns].sort().reverse()).toEqual(ns);
  });

  it('delivers the message.sent event of a send on the channel', async () => {
    const p = await project();
    const ch = await p.channel();
    const r = await receiver();
    const w = await p.webhook({ scope: 'channel', channelId: ch.channelId, url: r.url });
    const custom = await svc.admin('POST', `/projects/${p.projectId}/integrations`, {
      product: 'custom',
      channelId: ch.channelId,
    });
    const sent = await svc.send(custom.body.token, { to: '+5511988887777', body: 'Your code is 123456' });
    expect(sent.status).toBe(200);
    const { messageId } = (await sent.json()) as { messageId: string };
    const [got] = await r.waitFor(1);
    expect(got!.json).toMatchObject({
      type: 'message.sent',
      projectId: p.projectId,
      channel: { id: ch.channelId, type: 'sms' },
      data: { messageId },
    });
    expect(new Webhook(w.signingSecret).verify(got!.body, webhookHeaders(got!))).toBeTruthy();
  });

  it('delivers a payload over 200 KB intact (through S3)', async () => {
    const p = await project();
    const ch = await p.channel();
    const r = await receiver();
    const w = await p.webhook({ scope: 'general', url: r.url });
    const big = 'x'.repeat(300 * 1024);
    const eventId = await p.event(ch.channelId, 'message.received', { text: big });
    const [got] = await r.waitFor(1);
    expect(got!.json).toMatchObject({ id: eventId, data: { text: big } });
    expect(new Webhook(w.signingSecret).verify(got!.body, webhookHeaders(got!))).toBeTruthy();
  });
});
