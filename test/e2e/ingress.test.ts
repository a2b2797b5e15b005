import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { consistently, eventually } from '#test/support/eventually.ts';
import { startHttpDouble } from './send-doubles.ts';
import { startReceiver } from './webhooks-support.ts';
import {
  svc,
  twilioApi,
  projectId,
  channels,
  tokens,
  AUTH_TOKEN,
  APP_SECRET,
  events,
  waitForEvents,
  postTwilio,
  twilioStatus,
  useIngressChannels,
} from './ingress-support.ts';

/** Channel ingress, seen from outside: the channels' answers, and Twilio's inbound messages and statuses. */
useIngressChannels();

describe('channel answers', () => {
  it('carry where providers report back, and the verify token for Meta, never the secrets', async () => {
    expect(channels.twilio.inbound).toEqual({ url: `${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}` });
    expect(channels.whatsapp.inbound).toEqual({
      url: `${svc.baseUrl}/inbound/whatsapp/${channels.whatsapp.channelId}`,
      verifyToken: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
    });
    expect(channels.mailbox.inbound).toEqual({ address: 'support@inbound.example.com' });
    expect(channels['sandbox-sms'].inbound).toBeUndefined();
    const again = await svc.admin('GET', `/projects/${projectId}/channels/${channels.whatsapp.channelId}`);
    expect(again.body.inbound).toEqual(channels.whatsapp.inbound);
    expect(JSON.stringify(again.body)).not.toContain(APP_SECRET);
    expect(again.body.provider.hasAppSecret).toBe(true);
  });
});

describe('Twilio', () => {
  it('delivery receipts become message.delivered and message.read, once each, with the send’s messageId', async () => {
    const sent = (await (await svc.send(tokens.twilio!, { to: '+5511988887777', body: 'hello' })).json()) as any;
    expect(sent.messageId).toMatch(/^msg_/);
    const sid = `SM${String(twilioApi.requests.length - 1).padStart(32, '0')}`;
    for (const status of ['queued', 'sent', 'delivered', 'delivered', 'read', 'read']) {
      const answer = await postTwilio(channels.twilio.channelId, twilioStatus(sid, status));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/xml/);
      expect(await answer.text()).toBe('<Response></Response>');
    }
    const got = await waitForEvents((e) => e.data.messageId === sent.messageId && e.type !== 'message.sent', 2);
    await consistently(
      () =>
        expect(events((e) => e.data.messageId === sent.messageId).map((e) => e.type)).toEqual([
          'message.sent',
          'message.delivered',
          'message.read',
        ]),
      500,
    );
    expect(got[0]).toMatchObject({
      type: 'message.delivered',
      companyId: 7001,
      channel: { id: channels.twilio.channelId, type: 'sms', address: '+15005550006' },
      data: { messageId: sent.messageId, providerMessageId: sid, status: 'delivered', at: expect.any(String) },
    });

    const status = (await (
      await fetch(`${svc.baseUrl}/api/integration/messages/${sent.messageId}`, {
        headers: { authorization: `Bearer ${tokens.twilio}` },
      })
    ).json()) as any;
    expect(status.status).toBe('read');
    expect(status.history.map((h: any) => h.status)).toEqual(['sent', 'delivered', 'read']);
  });

  it('a receipt reaches the message its own channel sent, though another project’s provider gave the same id', async () => {
    const sent = (await (await svc.send(tokens.twilio!, { to: '+5511988887777', body: 'mine' })).json()) as any;
    const sid = `SM${String(twilioApi.requests.length - 1).padStart(32, '0')}`;
    // A provider id is unique only within its provider account, and a project may name any server as its provider:
    // another project's channel, sending after this one, is answered with the same id.
    const [otherApi, otherReceiver] = await Promise.all([
      startHttpDouble({ reply: () => ({ status: 201, body: { sid, status: 'queued' } }) }),
      startReceiver(),
    ]);
    try {
      const other = await svc.newProject({ companyId: 7002 });
      await svc.admin('POST', `/projects/${other.projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: otherReceiver.url,
      });
      const channel = await svc.admin('POST', `/projects/${other.projectId}/channels`, {
        name: 'same-ids',
        type: 'sms',
        address: '+15005550009',
        provider: {
          kind: 'twilio',
          accountSid: 'AC0123456789abcdef',
          authToken: AUTH_TOKEN,
          baseUrl: otherApi.baseUrl,
        },
      });
      expect(channel.status, JSON.stringify(channel.body)).toBe(201);
      const token = (
        await svc.admin('POST', `/projects/${other.projectId}/integrations`, {
          product: 'custom',
          channelId: channel.body.channelId,
        })
      ).body.token;
      const theirs = (await (await svc.send(token, { to: '+5511988887777', body: 'theirs' })).json()) as any;
      expect(theirs.messageId).toMatch(/^msg_/);
      expect(otherApi.requests).toHaveLength(1);
      expect((await postTwilio(channels.twilio.channelId, twilioStatus(sid, 'delivered'))).status).toBe(200);
      expect(
        (await postTwilio(channel.body.channelId, twilioStatus(sid, 'delivered', { From: '+15005550009' }))).status,
      ).toBe(200);
      const [mine] = await waitForEvents((e) => e.data.messageId === sent.messageId && e.type !== 'message.sent', 1);
      expect(mine).toMatchObject({
        type: 'message.delivered',
        data: { messageId: sent.messageId, providerMessageId: sid },
      });
      const delivered = () =>
        otherReceiver.received.filter((d) => d.json?.type === 'message.delivered').map((d) => d.json.data.messageId);
      await eventually(async () => (delivered().length ? true : undefined), 45_000, 'their message.delivered');
      expect(delivered()).toEqual([theirs.messageId]);
    } finally {
      await Promise.all([otherApi.close(), otherReceiver.close()]);
    }
  });

  it('undelivered becomes message.failed with Twilio’s error; nothing after it', async () => {
    const sent = (await (await svc.send(tokens.twilio!, { to: '+5511988887777', body: 'nope' })).json()) as any;
    const sid = `SM${String(twilioApi.requests.length - 1).padStart(32, '0')}`;
    await postTwilio(channels.twilio.channelId, twilioStatus(sid, 'undelivered', { ErrorCode: '30003' }));
    const [failed] = await waitForEvents((e) => e.data.messageId === sent.messageId && e.type === 'message.failed', 1);
    expect(failed.data).toMatchObject({ status: 'failed', error: expect.stringContaining('30003') });
    // A late report once the message has failed (posted after the failure was applied: two reports in flight at once
    // are processed in either order, and `delivered` first then `undelivered` is a different story).
    await postTwilio(channels.twilio.channelId, twilioStatus(sid, 'delivered'));
    await consistently(
      () =>
        expect(events((e) => e.data.messageId === sent.messageId).map((e) => e.type)).toEqual([
          'message.sent',
          'message.failed',
        ]),
      500,
    );
  });

  it('an incoming SMS with media becomes message.received; a retry of it is no second event', async () => {
    const inbound = {
      AccountSid: 'AC0123456789abcdef',
      ApiVersion: '2010-04-01',
      Body: 'Photo of the receipt',
      From: '+5511988887777',
      FromCity: 'SAO PAULO',
      FromCountry: 'BR',
      MediaContentType0: 'image/jpeg',
      // Twilio's media URL on the Twilio double, which answers JSON: fetched, and refused for its type (the media
      // themselves are test/e2e/conversations.test.ts's).
      MediaUrl0: `${twilioApi.baseUrl}/2010-04-01/Accounts/AC0123456789abcdef/Messages/MM1/Media/ME1`,
      MessageSid: 'MM11111111111111111111111111111111',
      NumMedia: '1',
      NumSegments: '1',
      SmsMessageSid: 'MM11111111111111111111111111111111',
      SmsSid: 'MM11111111111111111111111111111111',
      SmsStatus: 'received',
      To: '+15005550006',
    };
    expect((await postTwilio(channels.twilio.channelId, inbound)).status).toBe(200);
    expect((await postTwilio(channels.twilio.channelId, inbound)).status).toBe(200);
    const [received] = await waitForEvents((e) => e.type === 'message.received' && e.data.provider === 'twilio', 1);
    expect(received.data).toEqual({
      messageId: expect.stringMatching(/^msg_/),
      conversationId: expect.stringMatching(/^conv_/),
      direction: 'inbound',
      provider: 'twilio',
      providerMessageId: 'MM11111111111111111111111111111111',
      from: '+5511988887777',
      to: '+15005550006',
      text: 'Photo of the receipt',
      media: [
        {
          contentType: 'application/json',
          error: 'Media of type application/json are not accepted',
          providerUrl: inbound.MediaUrl0,
        },
      ],
      receivedAt: expect.any(String),
    });
    await consistently(
      () => expect(events((e) => e.type === 'message.received' && e.data.provider === 'twilio')).toHaveLength(1),
      500,
    );
    const record = (await (
      await fetch(`${svc.baseUrl}/api/integration/messages/${received.data.messageId}`, {
        headers: { authorization: `Bearer ${tokens.twilio}` },
      })
    ).json()) as any;
    expect(record).toMatchObject({ direction: 'inbound', status: 'received', from: '+5511988887777' });
  });

  it('refuses wrong signatures (403, nothing recorded), unknown channels and other providers (404)', async () => {
    const before = events().length;
    // An id the double never gives (it numbers its SIDs from SM0…0: the first test's send has that one), so that the
    // last status below is for a provider id this channel never sent.
    const params = twilioStatus('SM99999999999999999999999999999999', 'delivered');
    const tampered = await postTwilio(channels.twilio.channelId, { ...params, Body: 'x' }, AUTH_TOKEN, true);
    expect(tampered.status).toBe(403);
    expect(((await tampered.json()) as any).error).toBe('INVALID_SIGNATURE');
    // Signed with another channel's auth token.
    expect((await postTwilio(channels.twilio.channelId, params, 'another-token')).status).toBe(403);
    const unsigned = await fetch(`${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    expect(unsigned.status).toBe(403);
    for (const channelId of ['ch_doesnotexist', channels.whatsapp.channelId, channels['sandbox-sms'].channelId]) {
      const answer = await postTwilio(channelId, params);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as any).error).toBe('CHANNEL_NOT_FOUND');
    }
    const huge = await fetch(`${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'x' },
      body: `Body=${'a'.repeat(1024 * 1024 + 10)}`,
    });
    expect(huge.status).toBe(413);
    // A status for a provider id this service never sent: 200, dropped.
    expect((await postTwilio(channels.twilio.channelId, params)).status).toBe(200);
    await consistently(
      () =>
        expect(
          events()
            .slice(before)
            .map((e) => `${e.type} ${JSON.stringify(e.data)}`),
        ).toEqual([]),
      700,
    );
  });

  it('checks the signature over the URL exactly as requested: %20, +, reserved and UTF-8 escapes in the query', async () => {
    const base = `${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}`;
    const params = twilioStatus('SM0000000000000000000000000000q001', 'sent');
    const queries = [
      '?tag=a%20b',
      '?tag=a+b',
      '?note=caf%C3%A9%20com%20leite&ref=%2Fpedidos%2F42%3Fx%3D1%26y%3D2',
      '?next=/pedidos/42?x=1&at=user@example.org',
      "?sym=!'()*~",
      '?enc=%21%27%28%29%2A~',
      '?flag&sp=%20',
      '?empty=&sp=%20',
      '?emoji=%F0%9F%98%80&pct=100%25',
    ];
    for (const query of queries) {
      const url = base + query;
      const signature = twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params);
      expect(twilio.validateRequest(AUTH_TOKEN, signature, url, params), query).toBe(true);
      const post = (sig: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sig },
          body: new URLSearchParams(params).toString(),
        });
      const answer = await post(signature);
      expect(answer.status, query).toBe(200);
      expect(await answer.text()).toBe('<Response></Response>');
      // The same query, signed over another query or another token: still refused.
      const otherQuery = twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${url}&x=1`, params);
      expect((await post(otherQuery)).status, query).toBe(403);
      expect((await post(twilio.getExpectedTwilioSignature('another-token', url, params))).status).toBe(403);
    }
  });
});
