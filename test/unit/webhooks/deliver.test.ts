import { describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { DISABLE_AFTER_FAILING_MS } from '#shared/webhooks/deliver.ts';
import { deliveryIdFor } from '#shared/webhooks/model.ts';
import { signPayload } from '#shared/webhooks/signature.ts';
import { FakeSender, webhook } from './fakes.ts';
import { T0, body, setup, job, message } from './deliver-fixtures.ts';

describe('deliver', () => {
  it('POSTs a signed request from the job snapshot, with no webhook read, and records success', async () => {
    const t = setup();
    const failed = await t.deliver.deliverBatch([message(job())]);
    expect(failed).toEqual([]);
    expect(t.directory.gets).toBe(0);
    const [request] = t.sender.requests;
    expect(request!.url).toBe('https://hooks.example.com/a');
    expect(request!.body).toBe(body);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Switchboard/0.1.0',
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(T0 / 1000),
    });
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.headers['webhook-signature']).toBe(
      signPayload(webhook().signingSecrets[0]!, 'evt_1', T0 / 1000, body),
    );
    expect(t.deliveries.writes).toHaveLength(1);
    expect(t.deliveries.writes[0]).toMatchObject({
      status: 'succeeded',
      body,
      attempt: { statusCode: 200, durationMs: 3 },
    });
  });

  it('reads the webhook again on a retry and sends the bearer token', async () => {
    const t = setup({ webhooks: [webhook({ bearerToken: 'tok_1', url: 'https://new.example.com/x' })] });
    await t.deliver.deliverBatch([message(job(), 2)]);
    expect(t.directory.gets).toBe(1);
    expect(t.sender.requests[0]).toMatchObject({
      url: 'https://new.example.com/x',
      headers: { authorization: 'Bearer tok_1' },
    });
  });

  it('schedules retries on the schedule by postponing the message, numbering attempts by receive count', async () => {
    const t = setup({
      schedule: '5,300',
      sender: new FakeSender(() => ({ kind: 'http-error', statusCode: 500, durationMs: 1, error: 'HTTP 500' })),
    });
    expect(await t.deliver.deliverBatch([message(job(), 1)])).toEqual(['m1']);
    expect(t.queue.postponed).toEqual([{ receiptHandle: 'rh-m1', seconds: 5 }]);
    expect(t.deliveries.writes[0]).toMatchObject({
      status: 'pending',
      nextAttemptAt: T0 + 5000,
      attempt: { statusCode: 500, error: 'HTTP 500' },
    });
    await t.deliver.deliverBatch([message(job(), 2)]);
    expect(t.queue.postponed.at(-1)!.seconds).toBe(300);
    expect(t.deliveries.writes[1]!.body).toBeUndefined();
    // Third receive = third attempt = the last one.
    expect(await t.deliver.deliverBatch([message(job(), 3)])).toEqual([]);
    expect(t.deliveries.writes[2]).toMatchObject({ status: 'failed' });
    expect(t.deliveries.writes[2]!.nextAttemptAt).toBeUndefined();
  });

  it('re-sends a retry as a new message when the wait is longer than a message may stay invisible', async () => {
    const t = setup({
      schedule: '86400',
      sender: new FakeSender(() => ({ kind: 'timeout', durationMs: 15000, error: 'no answer' })),
    });
    expect(await t.deliver.deliverBatch([message(job())])).toEqual([]);
    expect(t.queue.postponed).toEqual([]);
    const [requeued] = t.queue.enqueued;
    expect(requeued!.delaySeconds).toBe(900);
    expect(requeued!.job).toMatchObject({ attemptsBefore: 1, notBefore: T0 + 86_400_000 });
    expect(requeued!.job.sealedTarget).toBeUndefined();
    // Received before it is due: waits again, no attempt.
    t.advance(900_000);
    expect(await t.deliver.deliverBatch([message(requeued!.job, 1, 'm2')])).toEqual(['m2']);
    expect(t.queue.postponed.at(-1)).toEqual({ receiptHandle: 'rh-m2', seconds: 42_900 });
    expect(t.sender.requests).toHaveLength(1);
    // Due: attempt number 2, the last one (its receive count does not matter).
    t.advance(86_400_000);
    await t.deliver.deliverBatch([message(requeued!.job, 3, 'm3')]);
    expect(t.sender.requests).toHaveLength(2);
    expect(t.deliveries.writes.at(-1)).toMatchObject({ status: 'failed' });
  });

  it('disables the webhook on 410 and fails the delivery at once', async () => {
    const t = setup({
      sender: new FakeSender(() => ({ kind: 'http-error', statusCode: 410, durationMs: 1, error: 'HTTP 410' })),
    });
    expect(await t.deliver.deliverBatch([message(job())])).toEqual([]);
    expect(t.deliveries.writes[0]).toMatchObject({ status: 'failed', attempt: { statusCode: 410 } });
    expect(t.directory.disabled).toEqual([{ integrationId: 'int_1', reason: 'gone' }]);
  });

  it('fails a delivery the address policy refused at once: no retry can reach a refused address', async () => {
    const t = setup({
      sender: new FakeSender(() => ({
        kind: 'forbidden',
        durationMs: 0,
        error: 'destination is a loopback address; refused',
      })),
    });
    expect(await t.deliver.deliverBatch([message(job())])).toEqual([]);
    expect(t.sender.requests).toHaveLength(1);
    expect(t.deliveries.writes).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempt: expect.objectContaining({ error: 'destination is a loopback address; refused' }),
      }),
    ]);
    expect(t.deliveries.writes[0]).not.toHaveProperty('nextAttemptAt');
  });

  it('disables a webhook that has failed every delivery for 5 days, one health write per failing batch', async () => {
    const t = setup({
      sender: new FakeSender(() => ({ kind: 'network', durationMs: 1, error: 'connection refused' })),
    });
    await t.deliver.deliverBatch([message(job())]);
    expect(t.health.writes).toBe(1);
    await t.deliver.deliverBatch([
      message(job({ eventId: 'evt_2', deliveryId: 'dlv_2' })),
      message(job({ eventId: 'evt_5', deliveryId: 'dlv_5' })),
    ]);
    expect(t.health.writes).toBe(2); // the batch's two failures folded into one write
    expect(t.health.state.get('int_1')).toMatchObject({ consecutiveFailures: 3, failingSince: T0 });
    t.advance(DISABLE_AFTER_FAILING_MS - 1000);
    await t.deliver.deliverBatch([message(job({ eventId: 'evt_3', deliveryId: 'dlv_3', targetReadAt: t.at() }))]);
    expect(t.directory.disabled).toEqual([]);
    t.advance(2000);
    await t.deliver.deliverBatch([message(job({ eventId: 'evt_4', deliveryId: 'dlv_4', targetReadAt: t.at() }))]);
    expect(t.directory.disabled).toEqual([{ integrationId: 'int_1', reason: 'failing' }]);
  });

  it('a success resets the 5-day clock', async () => {
    let ok = false;
    const t = setup({
      sender: new FakeSender(() =>
        ok
          ? { kind: 'success', statusCode: 204, durationMs: 1 }
          : { kind: 'http-error', statusCode: 500, durationMs: 1, error: 'HTTP 500' },
      ),
    });
    await t.deliver.deliverBatch([message(job())]);
    t.advance(4 * 86400_000);
    ok = true;
    await t.deliver.deliverBatch([message(job({ deliveryId: 'dlv_2', targetReadAt: t.at() }))]);
    ok = false;
    t.advance(2 * 86400_000);
    await t.deliver.deliverBatch([message(job({ deliveryId: 'dlv_3', targetReadAt: t.at() }))]);
    expect(t.directory.disabled).toEqual([]);
  });

  it('fails a delivery unsent when its webhook was disabled meanwhile, and drops it when deleted', async () => {
    const t = setup({ webhooks: [webhook({ enabled: false, disabledReason: 'manual' })] });
    await t.deliver.deliverBatch([message(job(), 2)]);
    expect(t.sender.requests).toHaveLength(0);
    expect(t.deliveries.writes[0]).toMatchObject({
      status: 'failed',
      attempt: { error: 'not sent: the webhook is disabled' },
    });
    const gone = setup({ webhooks: [] });
    expect(await gone.deliver.deliverBatch([message(job(), 2)])).toEqual([]);
    expect(gone.deliveries.writes).toHaveLength(0);
  });

  it('a manual retry is one attempt: no automatic retry after it', async () => {
    const t = setup({
      sender: new FakeSender(() => ({ kind: 'http-error', statusCode: 502, durationMs: 1, error: 'HTTP 502' })),
    });
    expect(
      await t.deliver.deliverBatch([message(job({ manual: true, attemptsBefore: 8, sealedTarget: undefined }), 1)]),
    ).toEqual([]);
    expect(t.deliveries.writes[0]).toMatchObject({ status: 'failed', manual: true });
    expect(t.queue.postponed).toEqual([]);
  });

  it('puts jobs for a hanging destination back on the queue without an attempt while others go through', async () => {
    const hangs: (() => void)[] = [];
    const sender = new FakeSender((request) =>
      request.url.includes('hang')
        ? new Promise((resolve) =>
            hangs.push(() => resolve({ kind: 'timeout', durationMs: 15_000, error: 'no answer' })),
          )
        : { kind: 'success', statusCode: 200, durationMs: 1 },
    );
    const bad = webhook({ integrationId: 'int_bad', url: 'https://hang.example.com/x' });
    const good = webhook({ integrationId: 'int_good', url: 'https://ok.example.com/x' });
    const t = setup({ sender, webhooks: [bad, good], now: Date.now });
    const jobs = [
      ...Array.from({ length: 5 }, (_, i) =>
        message(job({ eventId: `evt_b${i}`, deliveryId: `dlv_b${i}`, targetReadAt: Date.now() }, bad), 1, `b${i}`),
      ),
      ...Array.from({ length: 5 }, (_, i) =>
        message(job({ eventId: `evt_g${i}`, deliveryId: `dlv_g${i}`, targetReadAt: Date.now() }, good), 1, `g${i}`),
      ),
    ];
    const batch = t.deliver.deliverBatch(jobs);
    // The healthy receiver gets everything at once while the hanging one holds only the limit (2): a third attempt
    // to it would start at once with the others, so this state is never reached when the limit does not hold.
    await eventually(
      async () => sender.requests.filter((r) => r.url.includes('ok')).length === 5 && hangs.length === 2,
      10_000,
      'five attempts to the healthy receiver and two hanging',
    );
    expect(sender.requests.filter((r) => r.url.includes('hang'))).toHaveLength(2);
    for (const h of hangs) h();
    await batch;
    const deferred = t.queue.enqueued.map((q) => q.job);
    expect(deferred.map((j) => j.eventId).sort()).toEqual(['evt_b2', 'evt_b3', 'evt_b4']);
    expect(deferred.every((j) => j.attemptsBefore === 0 && j.deferrals === 1)).toBe(true);
    // No attempt recorded for the deferred ones.
    expect(t.deliveries.writes.map((w) => w.eventId).sort()).toEqual([
      'evt_b0',
      'evt_b1',
      'evt_g0',
      'evt_g1',
      'evt_g2',
      'evt_g3',
      'evt_g4',
    ]);
  });

  it('parks jobs behind a timed-out destination for 30 s, doubling each time, without an attempt', async () => {
    const t = setup({
      schedule: '5,5',
      sender: new FakeSender(() => ({ kind: 'timeout', durationMs: 15_000, error: 'no answer' })),
    });
    await t.deliver.deliverBatch([message(job())]);
    expect(t.sender.requests).toHaveLength(1);
    await t.deliver.deliverBatch([message(job({ eventId: 'evt_2', deliveryId: 'dlv_2' }), 1, 'm2')]);
    expect(t.sender.requests).toHaveLength(1);
    expect(t.queue.enqueued.at(-1)).toMatchObject({
      delaySeconds: 30,
      job: { deliveryId: 'dlv_2', deferrals: 1, attemptsBefore: 0 },
    });
    await t.deliver.deliverBatch([message(t.queue.enqueued.at(-1)!.job, 1, 'm3')]);
    expect(t.queue.enqueued.at(-1)).toMatchObject({ delaySeconds: 60, job: { deferrals: 2 } });
    expect(t.deliveries.writes.map((w) => w.deliveryId)).toEqual([deliveryIdFor('evt_1', 'int_1')]);
    // After half an hour parked, a refused job fails unsent and follows the schedule (postponed, not re-sent).
    const parked = { ...t.queue.enqueued.at(-1)!.job, deferrals: 6 };
    expect(await t.deliver.deliverBatch([message(parked, 1, 'm4')])).toEqual(['m4']);
    expect(t.sender.requests).toHaveLength(1);
    expect(t.deliveries.writes.at(-1)).toMatchObject({
      deliveryId: 'dlv_2',
      status: 'pending',
      attempt: {
        durationMs: 0,
        error: expect.stringMatching(/^not sent: https:\/\/hooks\.example\.com is not answering/),
      },
    });
    expect(t.queue.postponed.at(-1)).toEqual({ receiptHandle: 'rh-m4', seconds: 5 });
  });

  it('leaves an unreadable job for the dead-letter queue', async () => {
    const t = setup();
    expect(
      await t.deliver.deliverBatch([{ messageId: 'bad', receiptHandle: 'rh', body: '{"v":2}', receiveCount: 1 }]),
    ).toEqual(['bad']);
  });
});
