import { describe, expect, it } from 'vitest';
import { consistently } from '#test/support/eventually.ts';
import { svc, receiver, project, useWebhooksService } from './webhooks-project.ts';

/** POST /projects/{p}/events: a test event sent to a project's webhooks, as they receive it. */
useWebhooksService();

describe('POST /projects/{p}/events', () => {
  it('accepts Idempotency-Key on event reports: a retried report is one event, delivered once', async () => {
    const p = await project();
    const ch = await p.channel();
    const rx = await receiver();
    await p.webhook({ scope: 'general', url: rx.url });
    const report = (key: string, data: Record<string, unknown>) =>
      fetch(`${svc.baseUrl}/admin/v1/projects/${p.projectId}/events`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${svc.adminKey}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ channelId: ch.channelId, type: 'message.received', data }),
      });
    const first = await report('report-42', { messageId: 'msg_in_42' });
    expect(first.status).toBe(202);
    const { eventId } = (await first.json()) as { eventId: string };
    const retried = await report('report-42', { messageId: 'msg_in_42' });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retried.json()) as { eventId: string }).eventId).toBe(eventId);
    const reused = await report('report-42', { messageId: 'msg_in_43' });
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as { error: string }).error).toBe('IDEMPOTENCY_KEY_REUSED');
    const [delivered] = await rx.waitFor(1);
    expect(JSON.parse(delivered!.body).id).toBe(eventId);
    await consistently(() => expect(rx.received).toHaveLength(1), 500);
  });

  it('takes reports on a channel created a moment ago, and none once it is deleted (one instance: at once)', async () => {
    const p = await project();
    const rx = await receiver();
    await p.webhook({ scope: 'general', url: rx.url });
    const ch = await p.channel();
    const eventId = await p.event(ch.channelId, 'message.sent', { n: 1 });
    await p.event(ch.channelId, 'message.sent', { n: 2 }); // the channel as remembered by the first report
    expect((await svc.admin('DELETE', `/projects/${p.projectId}/channels/${ch.channelId}`)).status).toBe(204);
    const late = await svc.admin('POST', `/projects/${p.projectId}/events`, {
      channelId: ch.channelId,
      type: 'message.sent',
      data: { n: 3 },
    });
    expect(late.status).toBe(404);
    expect(late.body.error).toBe('CHANNEL_NOT_FOUND');
    const next = await p.channel();
    await p.event(next.channelId, 'message.sent', { n: 4 });
    const got = await rx.waitFor(3);
    expect(got.map((d) => d.json.data.n).sort()).toEqual([1, 2, 4]);
    expect(got.find((d) => d.json.data.n === 1)!.json).toMatchObject({
      id: eventId,
      channel: { id: ch.channelId, type: 'sms', address: '+5511999990000' },
    });
    await consistently(() => expect(rx.received).toHaveLength(3), 300);
  });

  it('validates the event and the channel', async () => {
    const p = await project();
    const ch = await p.channel();
    const other = await project();
    const otherChannel = await other.channel();
    const post = (body: unknown) => svc.admin('POST', `/projects/${p.projectId}/events`, body);
    expect((await post({ channelId: ch.channelId, type: 'message.exploded', data: {} })).body).toMatchObject({
      success: false,
      error: 'VALIDATION_ERROR',
    });
    expect((await post({ channelId: ch.channelId, type: 'message.sent', data: 'nope' })).status).toBe(400);
    expect((await post({ channelId: ch.channelId, type: 'message.sent', data: {}, extra: 1 })).status).toBe(400);
    const foreign = await post({ channelId: otherChannel.channelId, type: 'message.sent', data: {} });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('CHANNEL_NOT_FOUND');
    expect((await post({ channelId: 'ch_nope', type: 'message.sent', data: {} })).body.error).toBe('CHANNEL_NOT_FOUND');
    const noProject = await svc.admin('POST', '/projects/prj_nope/events', {
      channelId: ch.channelId,
      type: 'message.sent',
      data: {},
    });
    expect(noProject.status).toBe(404);
    expect(noProject.body.error).toBe('NOT_FOUND');
    expect((await svc.admin('GET', `/projects/${p.projectId}/integrations/int_nope/deliveries`)).status).toBe(404);
    const custom = await svc.admin('POST', `/projects/${p.projectId}/integrations`, {
      product: 'custom',
      channelId: ch.channelId,
    });
    const notWebhook = await svc.admin(
      'POST',
      `/projects/${p.projectId}/integrations/${custom.body.integrationId}/test`,
    );
    expect(notWebhook.status).toBe(400);
    expect(notWebhook.body.error).toBe('VALIDATION_ERROR');
    expect(
      (
        await svc.admin(
          'GET',
          `/projects/${p.projectId}/integrations/${custom.body.integrationId}/deliveries?status=nope`,
        )
      ).status,
    ).toBe(400);
  });
});
