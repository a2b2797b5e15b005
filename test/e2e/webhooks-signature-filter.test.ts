import { createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type ReceivedDelivery, webhookHeaders } from './webhooks-support.ts';
import { svc, receiver, project, useChatWebhookReceivers } from './webhooks-conversations-fixtures.ts';

/** Webhooks for chat back ends: `v1a` (ed25519) signatures, filters, and the health chart against the delivery log. */
useChatWebhookReceivers();

describe('signature: "v1a" (ed25519)', () => {
  const verifiedBy = (d: ReceivedDelivery, publicKey: string) => {
    const key = createPublicKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(publicKey.slice('whpk_'.length), 'base64').toString('base64url'),
      },
      format: 'jwk',
    });
    const signed = Buffer.from(`${d.headers['webhook-id']}.${d.headers['webhook-timestamp']}.${d.body}`);
    return String(d.headers['webhook-signature'])
      .split(' ')
      .filter((entry) => entry.startsWith('v1a,'))
      .some((entry) => verify(null, signed, key, Buffer.from(entry.slice(4), 'base64')));
  };

  it('signs with ed25519 only, verifiable with the public key the webhook shows, and rotates with both keys live', async () => {
    const p = await project();
    const sms = await p.channel();
    const rx = await receiver();
    const hook = await p.webhook({ url: rx.url, signature: 'v1a' });
    expect(hook.signature).toBe('v1a');
    expect(hook.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(hook.signingSecret).toBeUndefined();
    const got = await svc.admin('GET', `/projects/${p.projectId}/integrations/${hook.integrationId}`);
    expect(got.body.publicKey).toBe(hook.publicKey);

    await p.event(sms.channelId, { n: 1 });
    const [first] = await rx.waitFor(1);
    expect(String(first!.headers['webhook-signature'])).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifiedBy(first!, hook.publicKey!)).toBe(true);
    // A signature over another body or timestamp does not verify.
    expect(verifiedBy({ ...first!, body: first!.body.replace('"n":1', '"n":2') }, hook.publicKey!)).toBe(false);

    const rotated = await svc.admin(
      'POST',
      `/projects/${p.projectId}/integrations/${hook.integrationId}/rotate-secret`,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ publicKey: expect.stringMatching(/^whpk_/) });
    expect(rotated.body.publicKey).not.toBe(hook.publicKey);
    await p.event(sms.channelId, { n: 2 });
    const [, second] = await rx.waitFor(2);
    expect(String(second!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiedBy(second!, rotated.body.publicKey)).toBe(true);
    expect(verifiedBy(second!, hook.publicKey!)).toBe(true);

    // Back to v1: a new secret, shown once; the ed25519 key keeps signing beside it for 24 h.
    const switched = await p.patch(hook.integrationId, { signature: 'v1' });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({
      signature: 'v1',
      publicKey: null,
      signingSecret: expect.stringMatching(/^whsec_/),
    });
    await p.event(sms.channelId, { n: 3 });
    const [, , third] = await rx.waitFor(3);
    expect(new Webhook(switched.body.signingSecret).verify(third!.body, webhookHeaders(third!))).toEqual(third!.json);
    expect(verifiedBy(third!, rotated.body.publicKey)).toBe(true);
  });

  it('a v1 webhook switched to v1a keeps its HMAC secret signing beside the new key', async () => {
    const p = await project();
    const sms = await p.channel();
    const rx = await receiver();
    const hook = await p.webhook({ url: rx.url });
    expect(hook).toMatchObject({ signature: 'v1', publicKey: null, signingSecret: expect.stringMatching(/^whsec_/) });
    const switched = await p.patch(hook.integrationId, { signature: 'v1a' });
    expect(switched.body.signingSecret).toBeUndefined();
    await p.event(sms.channelId, { n: 1 });
    const [d] = await rx.waitFor(1);
    expect(new Webhook(hook.signingSecret!).verify(d!.body, webhookHeaders(d!))).toEqual(d!.json);
    expect(verifiedBy(d!, switched.body.publicKey)).toBe(true);
  });
});

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
