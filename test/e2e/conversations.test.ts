import { describe, expect, it } from 'vitest';
import { consistently } from '#test/support/eventually.ts';
import {
  svc,
  metaApi,
  ACCESS_TOKEN,
  project,
  send,
  api,
  postMeta,
  whatsAppCloud,
  unixSeconds,
  useConversationDoubles,
} from './conversations-support.ts';

/** Conversations, seen from outside: the WhatsApp 24-hour window and its templates, opt-outs and their keywords. */
useConversationDoubles();

describe('the WhatsApp 24-hour window', () => {
  it('sandbox: a message before the contact wrote is 409 WINDOW_CLOSED (closedAt null), nothing sent or charged; after it, 200', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'whatsapp', address: '+15551230001', credits: 5 });
    const closed = await send(ch.token, { number: '5511988880001', message: 'Olá!' });
    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ success: false, error: 'WINDOW_CLOSED', closedAt: null });
    expect(closed.body.requestId).toEqual(expect.any(String));
    const outbox = await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}/outbox`);
    expect(outbox.body.items).toEqual([]);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(5);

    const before = await api(ch.token, '/conversations/5511988880001');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      conversationId: expect.stringMatching(/^conv_[a-z0-9]{20}$/),
      contact: '5511988880001',
      window: { open: false, closesAt: null },
      optedOut: false,
    });

    // A template goes at any time.
    const template = await send(ch.token, {
      number: '5511988880001',
      template: { name: 'order_update', language: 'pt_BR', variables: ['Maria', '#1042'] },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(200);

    // The contact writes: the window opens for 24 h from their message.
    const reply = await svc.admin('POST', `/projects/${p.projectId}/channels/${ch.channelId}/sandbox/inbound`, {
      from: '5511988880001',
      text: 'Sim, pode mandar',
    });
    expect(reply.status).toBe(202);
    const [received] = await p.waitFor((e) => e.id === reply.body.eventId);
    const open = await api(ch.token, '/conversations/%2B5511988880001');
    expect(open.body.window.open).toBe(true);
    expect(Date.parse(open.body.window.closesAt) - Date.parse(received.data.receivedAt)).toBe(24 * 3600 * 1000);
    const sent = await send(ch.token, { number: '5511988880001', message: 'Obrigado!' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(3);

    // One conversation id on every message event of the contact, as the conversation route gives it.
    const all = await p.waitFor((e) => e.type.startsWith('message.'), 3);
    expect(new Set(all.map((e) => e.data.conversationId))).toEqual(new Set([before.body.conversationId]));
    expect(all.find((e) => e.data.messageId === template.body.messageId).data.payload.template).toEqual({
      name: 'order_update',
      language: 'pt_BR',
      variables: ['Maria', '#1042'],
    });
  });

  it('WhatsApp Cloud: a contact who last wrote two days ago gets WINDOW_CLOSED with the time it closed; no call to Meta', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const wroteAt = Date.now() - 2 * 24 * 3600 * 1000;
    await postMeta(ch.channelId, ch.phoneNumberId, {
      contacts: [{ profile: { name: 'Ana' }, wa_id: '5511988880002' }],
      messages: [
        {
          from: '5511988880002',
          id: `wamid.OLD${Date.now()}`,
          timestamp: unixSeconds(wroteAt),
          type: 'text',
          text: { body: 'oi' },
        },
      ],
    });
    await p.waitFor((e) => e.type === 'message.received');
    const calls = metaApi.requests.length;
    const closed = await send(ch.token, { number: '5511988880002', message: 'still there?' });
    expect(closed.status).toBe(409);
    expect(closed.body.error).toBe('WINDOW_CLOSED');
    expect(closed.body.closedAt).toBe(new Date(Math.floor(wroteAt / 1000) * 1000 + 24 * 3600 * 1000).toISOString());
    expect(metaApi.requests.length).toBe(calls);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(10);
    expect((await api(ch.token, '/conversations/5511988880002')).body.window).toEqual({
      open: false,
      closesAt: closed.body.closedAt,
    });
  });

  it('templates go to Meta as its template message; wrong variables are Meta’s 502 with its code, refunded', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const ok = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'shipping_update', language: 'en_US', variables: ['Ana', 'tomorrow'] },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const request = metaApi.requests.at(-1)!;
    expect(request.path).toBe(`/v21.0/${ch.phoneNumberId}/messages`);
    expect(request.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(JSON.parse(request.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511988880003',
      type: 'template',
      template: {
        name: 'shipping_update',
        language: { code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: 'tomorrow' },
            ],
          },
        ],
      },
    });
    const noVariables = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'hello_world', language: 'en_US' },
    });
    expect(noVariables.status).toBe(200);
    expect(JSON.parse(metaApi.requests.at(-1)!.body).template).toEqual({
      name: 'hello_world',
      language: { code: 'en_US' },
    });

    const wrong = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'wrong_vars', language: 'en_US', variables: ['only one'] },
    });
    expect(wrong.status).toBe(502);
    expect(wrong.body.error).toBe('PROVIDER_ERROR');
    expect(wrong.body.message).toContain('132000');
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(8);

    const both = await send(ch.token, {
      number: '5511988880003',
      message: 'x',
      template: { name: 'hello_world', language: 'en_US' },
    });
    expect(both.status).toBe(400);
    const bad = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'Hello World', language: 'english' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.path).sort()).toEqual(['template.language', 'template.name']);
  });
});

describe('opt-outs', () => {
  it('STOP suppresses the contact: contact.opted_out, 409 RECIPIENT_OPTED_OUT without provider call or credit; START restores', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'sms', address: '+15005550030', credits: 5 });
    const base = `/projects/${p.projectId}/channels/${ch.channelId}`;
    const stop = await svc.admin('POST', `${base}/sandbox/inbound`, { from: '+5511977770001', text: '  stop ' });
    expect(stop.status).toBe(202);
    const [optedOut] = await p.waitFor((e) => e.type === 'contact.opted_out');
    const conversation = await api(ch.token, '/conversations/%2B5511977770001');
    expect(optedOut).toMatchObject({
      channel: { id: ch.channelId, type: 'sms' },
      data: {
        contact: '+5511977770001',
        conversationId: conversation.body.conversationId,
        reason: 'keyword',
        keyword: 'STOP',
      },
    });
    expect(conversation.body).toEqual({
      conversationId: expect.any(String),
      contact: '+5511977770001',
      optedOut: true,
    });

    const refused = await send(ch.token, { to: '+5511977770001', body: 'Promo!' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('RECIPIENT_OPTED_OUT');
    expect(refused.body.details).toEqual([
      { path: 'to', message: expect.stringContaining('+5511977770001'), code: 'opted_out' },
    ]);
    expect((await svc.admin('GET', base)).body.credits).toBe(5);
    expect((await svc.admin('GET', `${base}/outbox`)).body.items).toEqual([]);

    const listed = await svc.admin('GET', `${base}/suppressions`);
    expect(listed.body).toEqual({
      items: [{ contact: '+5511977770001', reason: 'keyword', at: expect.any(String), keyword: 'STOP' }],
    });
    expect((await svc.admin('GET', `${base}/suppressions/%2B5511977770001`)).body.reason).toBe('keyword');

    // A second STOP changes nothing: no second event.
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: '+5511977770001', text: 'STOP' });
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: '+5511977770001', text: 'Voltar' });
    const [optedIn] = await p.waitFor((e) => e.type === 'contact.opted_in');
    expect(optedIn.data).toMatchObject({ contact: '+5511977770001', reason: 'keyword', keyword: 'VOLTAR' });
    await consistently(() => expect(p.events((e) => e.type.startsWith('contact.'))).toHaveLength(2), 300);
    expect((await send(ch.token, { to: '+5511977770001', body: 'Welcome back' })).status).toBe(200);
    expect((await svc.admin('GET', `${base}/suppressions`)).body.items).toEqual([]);
    expect((await svc.admin('GET', `${base}/suppressions/%2B5511977770001`)).status).toBe(404);
  });

  it('the management API lifts a suppression (contact.opted_in, reason admin); lists page; bad contacts are 400', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'sms', address: '+15005550031' });
    const base = `/projects/${p.projectId}/channels/${ch.channelId}`;
    for (const n of [3, 1, 2])
      await svc.admin('POST', `${base}/sandbox/inbound`, { from: `+551197777000${n}`, text: 'CANCELAR' });
    await p.waitFor((e) => e.type === 'contact.opted_out', 3);
    const first = await svc.admin('GET', `${base}/suppressions?limit=2`);
    expect(first.body.items.map((s: any) => s.contact)).toEqual(['+5511977770001', '+5511977770002']);
    const second = await svc.admin('GET', `${base}/suppressions?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((s: any) => s.contact)).toEqual(['+5511977770003']);
    expect(second.body.nextCursor ?? null).toBeNull();

    const lifted = await svc.admin('DELETE', `${base}/suppressions/%2B5511977770002`);
    expect(lifted.status).toBe(204);
    const [optedIn] = await p.waitFor((e) => e.type === 'contact.opted_in');
    expect(optedIn.data).toEqual({
      contact: '+5511977770002',
      conversationId: expect.stringMatching(/^conv_/),
      reason: 'admin',
    });
    expect((await svc.admin('DELETE', `${base}/suppressions/%2B5511977770002`)).status).toBe(404);
    expect((await send(ch.token, { to: '+5511977770002', body: 'hi' })).status).toBe(200);
    expect((await svc.admin('GET', `${base}/suppressions/not-a-number`)).status).toBe(400);
    expect((await api(ch.token, '/conversations/hello')).status).toBe(400);
  });

  it('per-channel keywords replace the defaults; an opted-out WhatsApp contact gets RECIPIENT_OPTED_OUT before the window check', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    expect(ch.optOutKeywords).toEqual(['STOP', 'PARAR', 'SAIR', 'CANCELAR', 'UNSUBSCRIBE']);
    expect(ch.optInKeywords).toEqual(['START', 'VOLTAR']);
    const patched = await svc.admin('PATCH', `/projects/${p.projectId}/channels/${ch.channelId}`, {
      optOutKeywords: ['PARE', 'Chega'],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.optOutKeywords).toEqual(['PARE', 'Chega']);
    const clash = await svc.admin('PATCH', `/projects/${p.projectId}/channels/${ch.channelId}`, {
      optInKeywords: ['pare'],
    });
    expect(clash.status).toBe(400);

    const old = Date.now() - 3 * 24 * 3600 * 1000;
    const message = (id: string, body: string, at: number) => ({
      messages: [{ from: '5511988880004', id, timestamp: unixSeconds(at), type: 'text', text: { body } }],
    });
    // STOP is no longer a keyword here; "chega" is, in any case. Both written three days ago: the window is closed.
    await postMeta(ch.channelId, ch.phoneNumberId, message(`wamid.K1${Date.now()}`, 'STOP', old));
    await postMeta(ch.channelId, ch.phoneNumberId, message(`wamid.K2${Date.now()}`, 'chega', old + 1000));
    const [optedOut] = await p.waitFor((e) => e.type === 'contact.opted_out');
    expect(optedOut.data).toMatchObject({ contact: '5511988880004', reason: 'keyword', keyword: 'Chega' });
    await p.waitFor((e) => e.type === 'message.received', 2);
    const calls = metaApi.requests.length;
    for (const body of [
      { number: '5511988880004', message: 'x' },
      { number: '5511988880004', template: { name: 'hello_world', language: 'en_US' } },
    ]) {
      const refused = await send(ch.token, body);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('RECIPIENT_OPTED_OUT');
    }
    expect(metaApi.requests.length).toBe(calls);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(10);
  });
});
