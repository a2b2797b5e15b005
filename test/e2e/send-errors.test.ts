import { describe, expect, it } from 'vitest';
import {
  svc,
  twilio,
  SEND,
  send,
  channelWithToken,
  creditsOf,
  smsChannel,
  twilioProvider,
  useSendDoubles,
} from './send-support.ts';

/** The send endpoint's errors, each with its code and nothing charged, and its Idempotency-Key. */
useSendDoubles();

describe('errors of the send endpoint', () => {
  it('401 ERR_NO_PERMISSION for a missing, malformed, unknown or wrong-kind token', async () => {
    const { token: apiToken } = await svc.newProject();
    const headers: (string | undefined)[] = [
      undefined,
      'Basic abc',
      'Bearer',
      'Bearer sbc_short',
      `Bearer sbc_${'A'.repeat(43)}`,
      `Bearer ${apiToken}`,
    ];
    for (const authorization of headers) {
      const res = await fetch(`${svc.baseUrl}${SEND}`, {
        method: 'POST',
        headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(res.status, String(authorization)).toBe(401);
      expect(await res.json()).toMatchObject({
        success: false,
        error: 'ERR_NO_PERMISSION',
        requestId: res.headers.get('x-request-id'),
      });
    }
  });

  it('400 INVALID_JSON, 413 over 10 MB, 400 for a non-object body', async () => {
    const { token } = await channelWithToken(smsChannel());
    const invalid = await send(token, '{"to": ');
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('INVALID_JSON');
    const big = await send(token, JSON.stringify({ to: '+5511988887777', body: 'x'.repeat(10 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('PAYLOAD_TOO_LARGE');
    const array = await send(token, [1, 2]);
    expect(array.status).toBe(400);
    expect(array.body.error).toBe('VALIDATION_ERROR');
  });

  it('404 CHANNEL_NOT_FOUND once the channel is deleted', async () => {
    const { projectId, channelId, token } = await channelWithToken(smsChannel());
    expect((await svc.admin('DELETE', `/projects/${projectId}/channels/${channelId}`)).status).toBe(204);
    const res = await send(token, { to: '+5511988887777', body: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'CHANNEL_NOT_FOUND' });
  });

  it('400 VALIDATION_ERROR with one detail per problem', async () => {
    const sms = await channelWithToken(smsChannel());
    const email = await channelWithToken({ type: 'email', address: 'support@example.com' });
    const wa = await channelWithToken({ type: 'whatsapp', address: '5511999990000' });
    const cases: [string, unknown, { path: string; message?: RegExp }[]][] = [
      [
        sms.token,
        { to: '+5511988887777', body: 'x', channelType: 'sms' },
        [{ path: 'channelType', message: /^channelType is derived from the token$/ }],
      ],
      [sms.token, { to: '11988887777', body: 'x' }, [{ path: 'to' }]],
      [sms.token, { to: '+5511988887777', body: 'x'.repeat(1601) }, [{ path: 'body', message: /1600/ }]],
      [
        sms.token,
        { to: '+5511988887777', body: `${'x'.repeat(1600)}y`, mediaUrls: ['http://insecure.example.com/a.png'] },
        [{ path: 'body' }, { path: 'mediaUrls.0' }],
      ],
      [
        sms.token,
        {
          to: '+5511988887777',
          body: 'x',
          metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])),
        },
        [{ path: 'metadata' }],
      ],
      [sms.token, { to: '+5511988887777', body: 'x', metadata: { nested: { a: 1 } } }, [{ path: 'metadata.nested' }]],
      // Names every object has: refused with 400 (a 500 after the provider had sent, before).
      [
        sms.token,
        { to: '+5511988887777', body: 'x', metadata: { constructor: 'x' } },
        [{ path: 'metadata.constructor', message: /reserved/ }],
      ],
      [
        sms.token,
        '{"to":"+5511988887777","body":"x","metadata":{"__proto__":"x"}}',
        [{ path: 'metadata.__proto__', message: /reserved/ }],
      ],
      [sms.token, { to: '+5511988887777', body: 'x', metadata: { 'a b': 1 } }, [{ path: 'metadata.a b' }]],
      // An email payload on an SMS token: wrong shape for the channel type.
      [sms.token, { to: 'ana@example.org', subject: 'Hi', body: 'x' }, [{ path: 'to' }, { path: 'subject' }]],
      [
        email.token,
        { to: 'ana@example.org', subject: 'Hi\r\nBcc: victim@example.org', body: 'x' },
        [{ path: 'subject', message: /CR or LF/ }],
      ],
      [
        email.token,
        { to: 'ana@example.org', subject: 'Hi', body: 'x', fromName: 'Evil\nBcc: x@example.org' },
        [{ path: 'fromName', message: /CR or LF/ }],
      ],
      [email.token, { to: 'ana@example.org', subject: 'Hi' }, [{ path: 'body', message: /body or html/ }]],
      [email.token, { to: ['ana@example.org', 'not-an-address'], subject: 'Hi', html: '<p>x</p>' }, [{ path: 'to.1' }]],
      [
        email.token,
        { to: Array.from({ length: 51 }, (_, i) => `u${i}@example.org`), subject: 'Hi', body: 'x' },
        [{ path: 'to' }],
      ],
      [email.token, {}, [{ path: 'to' }, { path: 'subject' }, { path: 'body' }]],
      [wa.token, { number: '+5511988887777', message: 'hi' }, [{ path: 'number' }]],
      [
        wa.token,
        { number: '5511 98888 7777', message: 'hi', files: ['ftp://x.example.com/a'] },
        [{ path: 'number' }, { path: 'files.0' }],
      ],
      [
        wa.token,
        {
          number: '5511988887777',
          message: 'hi',
          files: Array.from({ length: 11 }, (_, i) => `https://f.example.com/${i}.pdf`),
        },
        [{ path: 'files' }],
      ],
      [
        wa.token,
        { number: '5511988887777', message: 'hi', email: 'nope', url: 'not a url' },
        [{ path: 'email' }, { path: 'url' }],
      ],
    ];
    for (const [token, body, expected] of cases) {
      const res = await send(token, body);
      const label = JSON.stringify(body).slice(0, 120);
      expect(res.status, label).toBe(400);
      expect(res.body.error, label).toBe('VALIDATION_ERROR');
      expect(
        res.body.details.map((d: any) => d.path),
        label,
      ).toEqual(expected.map((e) => e.path));
      for (const [i, e] of expected.entries()) {
        expect(res.body.details[i], label).toEqual({
          path: e.path,
          message: expect.any(String),
          code: expect.any(String),
        });
        if (e.message) expect(res.body.details[i].message, label).toMatch(e.message);
      }
    }
  });

  it('402 PROVIDER_ERROR without credits: nothing charged, nothing sent', async () => {
    const { projectId, channelId, token } = await channelWithToken(
      smsChannel({ provider: twilioProvider(), credits: 0 }),
    );
    const res = await send(token, { to: '+5511988887777', body: 'x' });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ success: false, error: 'PROVIDER_ERROR' });
    expect(twilio.requests).toHaveLength(0);
    expect(await creditsOf(projectId, channelId)).toBe(0);
    // A top-up makes it send again, exactly as many times as credits were added.
    await svc.admin('POST', `/projects/${projectId}/channels/${channelId}/credits`, { amount: 1 });
    expect((await send(token, { to: '+5511988887777', body: 'x' })).status).toBe(200);
    expect((await send(token, { to: '+5511988887777', body: 'y' })).status).toBe(402);
    expect(twilio.requests).toHaveLength(1);
  });

  it('charges at most the balance under concurrent sends', async () => {
    const { projectId, channelId, token } = await channelWithToken(smsChannel({ credits: 3 }));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => send(token, { to: '+5511988887777', body: `m${i}` })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402)).toHaveLength(5);
    expect(await creditsOf(projectId, channelId)).toBe(0);
    expect((await svc.admin('GET', `/projects/${projectId}/channels/${channelId}/outbox`)).body.items).toHaveLength(3);
  });

  it('checks in order: authentication, the body parsed, the channel, the payload, then credits', async () => {
    const { projectId, channelId, token } = await channelWithToken(smsChannel({ credits: 0 }));
    // Invalid payload on a channel without credits: 400 comes before 402.
    expect((await send(token, { to: 'nope', body: 'x' })).status).toBe(400);
    await svc.admin('DELETE', `/projects/${projectId}/channels/${channelId}`);
    // Body parse comes before the channel lookup; the channel before the payload schema.
    expect((await send(token, '{bad')).body.error).toBe('INVALID_JSON');
    expect((await send(token, { to: 'nope' })).body.error).toBe('CHANNEL_NOT_FOUND');
    // Auth comes first of all.
    expect((await send(undefined, '{bad')).status).toBe(401);
  });

  it('410 GONE on the legacy endpoint, any method', async () => {
    for (const method of ['POST', 'GET', 'PUT', 'DELETE']) {
      const res = await fetch(`${svc.baseUrl}/api/integration/send`, {
        method,
        ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
      });
      expect(res.status, method).toBe(410);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ success: false, error: 'GONE' });
      expect(body.message).toContain('/api/integration/generic');
    }
  });

  it('405 with Allow for another method on the send path', async () => {
    const res = await fetch(`${svc.baseUrl}${SEND}`, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer: one provider call, one charge', async () => {
    const { projectId, channelId, token } = await channelWithToken(
      smsChannel({ provider: twilioProvider(), credits: 5 }),
    );
    const body = { to: '+5511988887777', body: 'once' };
    const first = await send(token, body, { 'idempotency-key': 'order-1001' });
    const again = await send(token, body, { 'idempotency-key': 'order-1001' });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(twilio.requests).toHaveLength(1);
    expect(await creditsOf(projectId, channelId)).toBe(4);
    const reused = await send(token, { ...body, body: 'different' }, { 'idempotency-key': 'order-1001' });
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(twilio.requests).toHaveLength(1);
  });

  it('never sends twice for concurrent retries with one key', async () => {
    const { token } = await channelWithToken(smsChannel({ provider: twilioProvider() }));
    const body = { to: '+5511988887777', body: 'concurrent' };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => send(token, body, { 'idempotency-key': 'k-concurrent' })),
    );
    expect(twilio.requests).toHaveLength(1);
    for (const r of results) expect([200, 409]).toContain(r.status);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error).toBe('IDEMPOTENCY_IN_PROGRESS');
  });
});
