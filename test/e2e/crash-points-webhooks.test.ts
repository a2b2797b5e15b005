import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crashRun, type CrashRun } from '#test/support/crash.ts';
import { consistently, eventually } from '#test/support/eventually.ts';
import type { ServiceClient } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * The webhook pipeline's and the credits' crash points (docs/durability.md): killed by their failpoints, restarted on
 * the same data. No webhook of an event is skipped, no delivery is left shown pending with nothing to attempt it, and
 * a credit is refunded exactly once.
 */
let receivers: TestReceiver[] = [];
// One run (one DATA_DIR) for the file: the service restarted after a crash point is armed for the next one
// (`run.armed`), so each crash point costs one start instead of two. Every test makes its own project, and waits
// until what it started has settled; `after-attempt` goes first, before any other test's deliveries exist.
let run: CrashRun;
beforeAll(() => {
  run = crashRun({ threads: false });
});
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});
afterAll(async () => run?.cleanUp());

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function smsChannel(svc: ServiceClient, projectId: string) {
  return (
    await svc.admin('POST', `/projects/${projectId}/channels`, { type: 'sms', name: 's', address: '+5511999990000' })
  ).body.channelId as string;
}

const report = (svc: ServiceClient, projectId: string, channelId: string, marker: string) =>
  svc.admin('POST', `/projects/${projectId}/events`, { channelId, type: 'message.sent', data: { marker } });

describe('crash points of the webhook pipeline', { timeout: 120_000 }, () => {
  it('after-attempt (the receiver got it, the attempt not recorded): attempted again with the same webhook-id, logged once succeeded', async () => {
    const first = await run.armed('after-attempt');
    const { projectId } = await first.client.newProject();
    const channelId = await smsChannel(first.client, projectId);
    const r = await receiver();
    const hook = (
      await first.client.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: r.url,
      })
    ).body;
    await report(first.client, projectId, channelId, 'attempt');
    await first.died();

    const second = await run.start();
    const delivery = await eventually(
      async () => {
        const [d] = (
          await second.client.admin('GET', `/projects/${projectId}/integrations/${hook.integrationId}/deliveries`)
        ).body.items;
        return d?.status === 'succeeded' ? d : undefined;
      },
      30_000,
      'the delivery recorded as succeeded',
    );
    expect(r.received.length).toBeGreaterThanOrEqual(2);
    expect(new Set(r.received.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect(delivery.attempts).toHaveLength(1);
  });

  it('after-fanout-batch (some of an event’s jobs queued, the rest not): every webhook still gets it', async () => {
    const first = await run.armed('after-fanout-batch');
    const { projectId } = await first.client.newProject();
    const channelId = await smsChannel(first.client, projectId);
    // 12 webhooks: more than one SendMessageBatch (10 jobs) of the fan-out.
    const rs = await Promise.all(Array.from({ length: 12 }, () => receiver()));
    for (const r of rs)
      await first.client.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'channel',
        channelId,
        url: r.url,
      });
    expect((await report(first.client, projectId, channelId, 'fanout')).status).toBe(202);
    await first.died();

    await run.start();
    await eventually(async () => rs.every((r) => r.received.length > 0), 30_000, 'every webhook reached');
    const ids = new Set(rs.flatMap((r) => r.received.map((d) => d.headers['webhook-id'])));
    expect(ids.size).toBe(1);
  });

  it('after-retry-enqueue (a manual retry queued, not yet marked pending): the attempt runs and its outcome is what the log shows', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? 200 : 500));
    const first = await run.armed('after-retry-enqueue');
    const { projectId } = await first.client.newProject();
    const channelId = await smsChannel(first.client, projectId);
    const hook = (
      await first.client.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: r.url,
      })
    ).body;
    await report(first.client, projectId, channelId, 'retry');
    const deliveries = (svc: ServiceClient) =>
      svc
        .admin('GET', `/projects/${projectId}/integrations/${hook.integrationId}/deliveries`)
        .then((res) => res.body.items);
    const failed = await eventually(async () => {
      const [d] = await deliveries(first.client);
      return d?.status === 'failed' ? d : undefined;
    }, 20_000);
    healthy = true;
    await expect(
      first.client.admin(
        'POST',
        `/projects/${projectId}/integrations/${hook.integrationId}/deliveries/${failed.deliveryId}/retry`,
      ),
    ).rejects.toThrow();
    await first.died();

    const second = await run.start();
    const done = await eventually(async () => {
      const [d] = await deliveries(second.client);
      return d?.status === 'succeeded' ? d : undefined;
    }, 30_000);
    expect(done.attempts.length).toBe(failed.attempts.length + 1);
    await consistently(async () => expect((await deliveries(second.client))[0].status).toBe('succeeded'), 1_000);
  });

  it('after-recover-claim (failed deliveries claimed, not yet queued): the next recover takes them again', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? 200 : 500));
    const first = await run.armed('after-recover-claim');
    const { projectId } = await first.client.newProject();
    const channelId = await smsChannel(first.client, projectId);
    const hook = (
      await first.client.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: r.url,
      })
    ).body;
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const i of [1, 2, 3]) await report(first.client, projectId, channelId, `recover-${i}`);
    const list = (svc: ServiceClient) =>
      svc
        .admin('GET', `/projects/${projectId}/integrations/${hook.integrationId}/deliveries`)
        .then((res) => res.body.items);
    await eventually(async () => {
      const items = await list(first.client);
      return items.length === 3 && items.every((d: { status: string }) => d.status === 'failed');
    }, 20_000);
    healthy = true;
    await expect(
      first.client.admin('POST', `/projects/${projectId}/integrations/${hook.integrationId}/recover`, { since }),
    ).rejects.toThrow();
    await first.died();

    const second = await run.start();
    // The dead recover's claims are stale after WEBHOOK_RECOVER_CLAIM_STALE_SECONDS (1 s here; 60 s by default).
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const again = await second.client.admin(
      'POST',
      `/projects/${projectId}/integrations/${hook.integrationId}/recover`,
      {
        since,
      },
    );
    expect(again.body.recovered).toBe(3);
    await eventually(
      async () => (await list(second.client)).every((d: { status: string }) => d.status === 'succeeded'),
      30_000,
    );
  });
});

describe('crash points of the credits', { timeout: 120_000 }, () => {
  it('after-charge (charged, the work never ran): the sweeper refunds it, once', async () => {
    const first = await run.armed('after-charge');
    const { projectId, token } = await first.client.newProject({ monthlyBotCredits: 3 });
    await expect(first.client.botsApi(token, 'completion', { prompt: 'hi', instructions: 'x' })).rejects.toThrow();
    await first.died();

    const second = await run.start();
    await eventually(async () => (await second.client.botBalance(projectId)) === 3, 30_000, 'the refund');
    await consistently(async () => expect(await second.client.botBalance(projectId)).toBe(3), 6_000);
  });

  it('after-refund (refunded, the answer never sent): refunded once, the sweeper does not refund again', async () => {
    const first = await run.armed('after-refund');
    const { projectId, token } = await first.client.newProject({ monthlyBotCredits: 3 });
    // A PDF that parses but holds nothing readable: charged, then refunded (502 EXTRACTION_FAILED) — and the process
    // dies right after the refund.
    const { blankPdf } = await import('#test/support/pdf-fixtures.ts');
    const form = new FormData();
    form.append('file', new Blob([await blankPdf()], { type: 'application/pdf' }), 'blank.pdf');
    await expect(
      fetch(`${first.process.baseUrl}/api/v1/ai/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      }),
    ).rejects.toThrow();
    await first.died();

    const second = await run.start();
    // Past two sweeps (every 5 s, charges older than 1 s): the balance stays where the one refund left it.
    await consistently(async () => expect(await second.client.botBalance(projectId)).toBe(3), 11_000);
  });
});
