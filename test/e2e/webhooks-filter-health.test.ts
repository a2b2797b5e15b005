import { describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { svc, receiver, project, useChatWebhooksService } from './webhooks-conversations-support.ts';

/** Webhooks for chat back ends: filters on what a webhook receives, and the health chart against the delivery log. */
useChatWebhooksService();

describe('filter', () => {
  it('delivers only the events that match every condition', async () => {
    const p = await project();
    const sms = await p.channel('sms');
    const wa = await p.channel('whatsapp', '+5511977776666');
    const rx = await receiver();
    const filter = {
      all: [
        { field: 'channel.type', op: 'in', value: ['whatsapp', 'email'] },
        { field: 'data.from', op: 'prefix', value: '+55' },
        { field: 'data.media', op: 'exists' },
      ],
    };
    const hook = await p.webhook({ url: rx.url, filter });
    expect(hook.filter).toEqual(filter);
    const media = [{ contentType: 'image/jpeg', url: 'https://cdn.example.com/1.jpg' }];
    await p.event(sms.channelId, { n: 1, from: '+5511', media }); // sms: no
    await p.event(wa.channelId, { n: 2, from: '+1415', media }); // not +55
    await p.event(wa.channelId, { n: 3, from: '+5511' }); // no media
    await p.event(wa.channelId, { n: 4, from: '+5511', media: null }); // null media
    await p.event(wa.channelId, { n: 5, from: '+5511', media }); // yes
    await rx.waitFor(1);
    // The filter changes at once; null removes it.
    const removed = await p.patch(hook.integrationId, { filter: null });
    expect(removed.body.filter).toBeNull();
    await p.event(sms.channelId, { n: 6 });
    await rx.waitFor(2);
    expect(rx.received.map((d) => d.json.data.n)).toEqual([5, 6]);
  });

  it('refuses a filter that is not one, field by field, at create and at PATCH', async () => {
    const p = await project();
    const create = await svc.admin('POST', `/projects/${p.projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'http://127.0.0.1:9/x',
      filter: {
        all: [
          { field: 'body.x', op: 'eq', value: 1 },
          { field: 'data.a', op: 'in', value: 'x' },
          { field: 'data.b', op: 'prefix', value: 3 },
          { field: 'data.c', op: 'exists', value: 'yes' },
          { field: 'data.d', op: 'eq' },
          { field: 'data..e', op: 'eq', value: 1 },
          { field: 'data.f', op: 'regex', value: '.*' },
        ],
      },
    });
    expect(create.status).toBe(400);
    expect(create.body.error).toBe('VALIDATION_ERROR');
    const paths = create.body.details.map((d: { path: string }) => d.path);
    for (const path of [
      'filter.all.0.field',
      'filter.all.1.value',
      'filter.all.2.value',
      'filter.all.3.value',
      'filter.all.4.value',
      'filter.all.5.field',
      'filter.all.6.op',
    ])
      expect(paths).toContain(path);
    const ok = await p.webhook({ url: 'http://127.0.0.1:9/x' });
    const tooMany = await p.patch(ok.integrationId, {
      filter: { all: Array.from({ length: 11 }, () => ({ field: 'type', op: 'eq', value: 'message.sent' })) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details.map((d: { path: string }) => d.path)).toContain('filter.all');
    const unknown = await p.patch(ok.integrationId, { filter: { any: [] } });
    expect(unknown.status).toBe(400);
  });
});

describe('health chart', () => {
  it('counts exactly the attempts the delivery log shows after a burst', async () => {
    const p = await project();
    const sms = await p.channel();
    const tried = new Set<string>();
    const rx = await receiver((d) => {
      const id = String(d.headers['webhook-id']);
      const first = !tried.has(id);
      tried.add(id);
      return first && d.json.data.n % 4 === 0 ? 500 : 200;
    });
    const hook = await p.webhook({ url: rx.url });
    const events = 80;
    await Promise.all(
      Array.from({ length: 8 }, async (_, producer) => {
        for (let n = producer; n < events; n += 8) await p.event(sms.channelId, { n }, 'message.sent');
      }),
    );
    await eventually(
      async () => (await p.deliveries(hook.integrationId)).filter((d) => d.status === 'succeeded').length === events,
      20_000,
      'every delivery succeeded',
    );
    const listed = await p.deliveries(hook.integrationId);
    const attempts = listed.flatMap((d) => d.attempts);
    const fromLog = {
      succeeded: attempts.filter((a) => a.statusCode === 200).length,
      failed: attempts.filter((a) => a.statusCode !== 200).length,
    };
    // The chart's counters are added once per deliver batch, after the batch's attempts are logged: a moment behind.
    const readHealth = () => svc.admin('GET', `/projects/${p.projectId}/integrations/${hook.integrationId}/health`);
    await eventually(
      async () => {
        const h = await readHealth();
        return h.body.succeeded + h.body.failed >= fromLog.succeeded + fromLog.failed;
      },
      10_000,
      'the counters caught up with the log',
    );
    const health = await readHealth();
    expect(health.status).toBe(200);
    expect({ succeeded: health.body.succeeded, failed: health.body.failed }).toEqual(fromLog);
    expect(health.body.failed).toBe(events / 4);
    expect(rx.received).toHaveLength(events + events / 4);
  });
});
