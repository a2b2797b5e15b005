import { createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { E2E_ATTEMPTS } from '#test/support/groups/e2e.ts';
import { type ReceivedDelivery, webhookHeaders } from './webhooks-support.ts';
import {
  svc,
  receiver,
  project,
  arrivalsByKey,
  outOfOrder,
  useChatWebhooksService,
} from './webhooks-conversations-support.ts';

/** Webhooks for chat back ends: ordered delivery per conversation, and `v1a` (ed25519) signatures. */
useChatWebhooksService();

describe('ordering: "conversation"', () => {
  it('delivers each conversation in order while a failing delivery holds back only its own', async () => {
    const p = await project();
    const sms = await p.channel();
    // The first attempt of every third event fails; conversation c0's third event is refused at every attempt with
    // `Retry-After: 2`, so c0 is held back for about 6 s (4 attempts) before that delivery ends failed.
    const tried = new Set<string>();
    const rx = await receiver((d) => {
      const id = String(d.headers['webhook-id']);
      if (d.json.data.conversationId === 'c0' && d.json.data.n === 2)
        return { status: 429, headers: { 'retry-after': '2' } };
      const first = !tried.has(id);
      tried.add(id);
      return first && d.json.data.n % 3 === 1 ? 503 : 200;
    });
    const hook = await p.webhook({ url: rx.url, ordering: 'conversation' });
    expect(hook.ordering).toBe('conversation');

    const perConversation = 6;
    const conversations = ['c0', 'c1', 'c2', 'c3'];
    // Each conversation's events posted one after another (its back end reports them in order), all at once.
    await Promise.all(
      conversations.map(async (conversationId) => {
        for (let n = 0; n < perConversation; n++) await p.event(sms.channelId, { conversationId, n, text: `m${n}` });
      }),
    );
    // c1..c3 flow: every one of their events arrives while c0 is held back on its third event.
    await eventually(
      async () => {
        const others = rx.received.filter((d) => d.json.data.conversationId !== 'c0');
        return new Set(others.map((d) => d.headers['webhook-id'])).size === 3 * perConversation;
      },
      20_000,
      'every event of c1..c3',
    );
    expect(rx.received.filter((d) => d.json.data.conversationId === 'c0').map((d) => d.json.data.n)).not.toContain(3);
    // c0 then goes on after its third event ended failed: every event of it arrives, in order.
    await eventually(
      async () =>
        new Set(rx.received.filter((d) => d.json.data.conversationId === 'c0').map((d) => d.json.data.n)).size ===
        perConversation,
      20_000,
      'every event of c0',
    );
    const arrivals = arrivalsByKey(rx.received, (d) => d.json.data.conversationId);
    for (const key of conversations) expect(outOfOrder(arrivals.get(key)!), `${key}: ${arrivals.get(key)}`).toBe(0);
    // c0's third event was tried every attempt before its fourth was tried at all.
    const c0 = arrivals.get('c0')!;
    expect(c0.filter((n) => n === 2)).toHaveLength(E2E_ATTEMPTS);
    // Each record is written right after its receiver answered: the last one may still be on its way.
    const listed = await eventually(
      async () => {
        const items = await p.deliveries(hook.integrationId);
        return items.filter((d) => d.status === 'succeeded').length === 4 * perConversation - 1 ? items : undefined;
      },
      10_000,
      'every delivery recorded',
    );
    expect(listed.filter((d) => d.status === 'failed')).toHaveLength(1);
    expect(listed.filter((d) => d.status === 'succeeded')).toHaveLength(4 * perConversation - 1);
  });

  it('orders events without a conversation by their channel, and an unordered webhook beside it gets them too', async () => {
    const p = await project();
    const a = await p.channel('sms', '+5511900000001');
    const b = await p.channel('sms', '+5511900000002');
    const tried = new Set<string>();
    const ordered = await receiver((d) => {
      const id = String(d.headers['webhook-id']);
      const first = !tried.has(id);
      tried.add(id);
      return first && d.json.data.n === 0 ? 500 : 200;
    });
    const plain = await receiver();
    await p.webhook({ url: ordered.url, ordering: 'conversation' });
    await p.webhook({ scope: 'channel', channelId: a.channelId, url: plain.url });
    for (let n = 0; n < 5; n++) {
      await p.event(a.channelId, { n }, 'message.sent');
      await p.event(b.channelId, { n }, 'message.sent');
    }
    await ordered.waitFor(12, 15_000);
    await plain.waitFor(5, 15_000);
    const arrivals = arrivalsByKey(ordered.received, (d) => d.json.channel.id);
    expect(arrivals.get(a.channelId)).toEqual([0, 0, 1, 2, 3, 4]);
    expect(arrivals.get(b.channelId)).toEqual([0, 0, 1, 2, 3, 4]);
  });

  it('a manual retry and a recover wait their turn in the conversation and keep its order', async () => {
    const p = await project();
    const sms = await p.channel();
    let mode: 'fail' | 'ok' = 'fail';
    const rx = await receiver(() => (mode === 'fail' ? 500 : 200));
    const hook = await p.webhook({ url: rx.url, ordering: 'conversation' });
    const since = new Date(Date.now() - 1000).toISOString();
    for (let n = 0; n < 3; n++) await p.event(sms.channelId, { conversationId: 'r1', n });
    await eventually(
      async () => (await p.deliveries(hook.integrationId)).filter((d) => d.status === 'failed').length === 3,
      20_000,
      'three failed deliveries',
    );
    expect(outOfOrder(arrivalsByKey(rx.received, () => 'r1').get('r1')!)).toBe(0);

    mode = 'ok';
    const before = rx.received.length;
    const recovered = await svc.admin('POST', `/projects/${p.projectId}/integrations/${hook.integrationId}/recover`, {
      since,
    });
    expect(recovered.status).toBe(202);
    expect(recovered.body.recovered).toBe(3);
    await rx.waitFor(before + 3, 15_000);
    expect(rx.received.slice(before).map((d) => d.json.data.n)).toEqual([0, 1, 2]);

    // A later event of the conversation is refused twice with `Retry-After: 1`; a manual retry of the first event,
    // asked for meanwhile, waits until that delivery is done.
    const tried = new Map<number, number>();
    rx.answer = (d) => {
      const n = d.json.data.n as number;
      tried.set(n, (tried.get(n) ?? 0) + 1);
      return n === 3 && tried.get(n)! < 3 ? { status: 429, headers: { 'retry-after': '1' } } : 200;
    };
    const afterRecover = rx.received.length;
    await p.event(sms.channelId, { conversationId: 'r1', n: 3 });
    await eventually(async () => tried.get(3) === 1, 10_000, 'the first attempt of the fourth event');
    const oldest = (await p.deliveries(hook.integrationId)).at(-1)!;
    expect(oldest.eventId).toBe(rx.received[0]!.headers['webhook-id']);
    const retry = await svc.admin(
      'POST',
      `/projects/${p.projectId}/integrations/${hook.integrationId}/deliveries/${oldest.deliveryId}/retry`,
    );
    expect(retry.status).toBe(202);
    await rx.waitFor(afterRecover + 4, 15_000);
    expect(rx.received.slice(afterRecover).map((d) => d.json.data.n)).toEqual([3, 3, 3, 0]);
  });
});

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
