import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { openWhatsAppWindow } from '#test/support/whatsapp-window.ts';
import { startHttpDouble, startSmtpDouble } from './send-doubles.ts';

let svc: ServiceClient;
let smtp: Awaited<ReturnType<typeof startSmtpDouble>>;
let twilio: Awaited<ReturnType<typeof startHttpDouble>>;
let whatsapp: Awaited<ReturnType<typeof startHttpDouble>>;

/** The e2e group's SEND_PROVIDER_TIMEOUT_MS (test/support/groups/e2e.ts). */
const PROVIDER_TIMEOUT_MS = 2000;

beforeAll(async () => {
  [svc, smtp, twilio, whatsapp] = await Promise.all([
    sharedService(),
    startSmtpDouble(),
    startHttpDouble({
      reply: (_req, i) => ({ status: 201, body: { sid: `SM${String(i).padStart(32, '0')}`, status: 'queued' } }),
    }),
    startHttpDouble({
      reply: (_req, i) => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.${i}` }] } }),
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), smtp?.close(), twilio?.close(), whatsapp?.close()]);
});
beforeEach(() => {
  twilio.reset();
  whatsapp.reset();
  smtp.mails.length = 0;
  smtp.setRefuse(false);
});

const SEND = '/api/integration/generic';

async function send(token: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.baseUrl}${SEND}`, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/** A project with one channel and a custom token bound to it. */
async function channelWithToken(channel: Record<string, unknown>) {
  const { projectId } = await svc.newProject();
  const created = await svc.admin('POST', `/projects/${projectId}/channels`, { name: 'Channel', ...channel });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const integration = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'custom',
    channelId: created.body.channelId,
  });
  expect(integration.status).toBe(201);
  return { projectId, channelId: created.body.channelId as string, token: integration.body.token as string };
}

async function creditsOf(projectId: string, channelId: string): Promise<number | undefined> {
  const list = await svc.admin('GET', `/projects/${projectId}/channels`);
  return list.body.items.find((c: any) => c.channelId === channelId)?.credits;
}

const smsChannel = (extra: Record<string, unknown> = {}) => ({ type: 'sms', address: '+5511999990000', ...extra });
const twilioProvider = () => ({
  kind: 'twilio',
  accountSid: 'AC0123456789abcdef',
  authToken: 'twilio-secret',
  baseUrl: twilio.baseUrl,
});
const whatsappProvider = () => ({
  kind: 'whatsapp-cloud',
  phoneNumberId: '1098765',
  accessToken: 'wa-access-token',
  appSecret: 'wa-app-secret',
  baseUrl: whatsapp.baseUrl,
});
const cloud = { appSecret: 'wa-app-secret', phoneNumberId: '1098765' };
// The double speaks SMTP without STARTTLS: the channel must say so explicitly (TLS is required by default).
const smtpProvider = () => ({
  kind: 'smtp',
  host: '127.0.0.1',
  port: smtp.port,
  user: 'mailer',
  pass: 'smtp-pass',
  allowPlaintext: true,
});

describe('sandbox provider', () => {
  it('answers 200 with the contract body and records the message in the outbox', async () => {
    const { projectId, channelId, token } = await channelWithToken(smsChannel({ credits: 3 }));
    const res = await send(token, {
      to: '+5511988887777',
      body: 'Hello from the sandbox',
      metadata: { orderId: 42, vip: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      messageId: expect.stringMatching(/^msg_/),
      status: 'sent',
      channel: { id: channelId, type: 'sms' },
    });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await creditsOf(projectId, channelId)).toBe(2);
    const outbox = await svc.admin('GET', `/projects/${projectId}/channels/${channelId}/outbox`);
    expect(outbox.status).toBe(200);
    expect(outbox.body.items).toEqual([
      {
        messageId: res.body.messageId,
        to: '+5511988887777',
        payload: { to: '+5511988887777', body: 'Hello from the sandbox', metadata: { orderId: 42, vip: true } },
        sentAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
  });

  it('keeps WhatsApp contact and routing data with the message, newest first', async () => {
    const target = await channelWithToken({ type: 'whatsapp', address: '5511999990000' });
    const { projectId, channelId, token } = target;
    // Free-form messages go inside the contact's 24-hour window: the contact writes first.
    await openWhatsAppWindow(svc, target, '5511988887777');
    const first = await send(token, { number: '5511988887777', message: 'first' });
    const second = await send(token, {
      number: '5511988887777',
      message: 'Your order shipped',
      name: 'Maria Silva',
      email: 'maria@example.com',
      url: 'https://shop.example.com/?utm_source=switchboard',
      sector: 'queue-42',
      files: ['https://files.example.com/invoice.pdf'],
    });
    expect([first.status, second.status]).toEqual([200, 200]);
    const outbox = await svc.admin('GET', `/projects/${projectId}/channels/${channelId}/outbox`);
    expect(outbox.body.items.map((i: any) => i.messageId)).toEqual([second.body.messageId, first.body.messageId]);
    expect(outbox.body.items[0].payload).toMatchObject({
      name: 'Maria Silva',
      email: 'maria@example.com',
      url: 'https://shop.example.com/?utm_source=switchboard',
      sector: 'queue-42',
    });
    const page = await svc.admin('GET', `/projects/${projectId}/channels/${channelId}/outbox?limit=1`);
    expect(page.body.items).toHaveLength(1);
    const next = await svc.admin(
      'GET',
      `/projects/${projectId}/channels/${channelId}/outbox?limit=1&cursor=${page.body.nextCursor}`,
    );
    expect(next.body.items[0].messageId).toBe(first.body.messageId);
  });
});

describe('SMTP provider', () => {
  it('delivers the mail with the fields a mail client expects', async () => {
    const { token } = await channelWithToken({
      type: 'email',
      address: 'support@example.com',
      provider: smtpProvider(),
    });
    const res = await send(token, {
      to: ['ana@example.org', 'bruno@example.org'],
      bcc: 'audit@example.net',
      subject: 'Re: your ticket 123',
      fromName: 'Support Team',
      text: 'Plain text version',
      html: '<p>HTML <b>version</b></p>',
      inReplyTo: '<ticket-123@mail.example.org>',
      references: ['<ticket-122@mail.example.org>', '<ticket-123@mail.example.org>'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // One copy per recipient (each carries its own List-Unsubscribe address), all under one Message-ID.
    expect(smtp.mails.map((m) => m.rcptTo.join()).sort()).toEqual([
      'ana@example.org',
      'audit@example.net',
      'bruno@example.org',
    ]);
    expect(new Set(smtp.mails.map((m) => m.headers['message-id'])).size).toBe(1);
    expect(new Set(smtp.mails.map((m) => m.headers['list-unsubscribe'])).size).toBe(3);
    for (const copy of smtp.mails) {
      expect(copy.headers.to).toBe('ana@example.org, bruno@example.org');
      expect(copy.headers).not.toHaveProperty('bcc');
      expect(copy.raw).not.toContain('audit@example.net');
      expect(copy.headers['list-unsubscribe']).toMatch(
        /^<mailto:support\+unsub-[a-z2-7]{26}@example\.com\?subject=unsubscribe>$/,
      );
    }
    const mail = smtp.mails[0]!;
    expect(mail.auth).toEqual({ username: 'mailer', password: 'smtp-pass' });
    expect(mail.mailFrom).toBe('support@example.com');
    expect(mail.headers.from).toMatch(/^"?Support Team"? <support@example\.com>$/);
    expect(mail.headers.subject).toBe('Re: your ticket 123');
    expect(mail.headers['in-reply-to']).toBe('<ticket-123@mail.example.org>');
    expect(mail.headers.references).toBe('<ticket-122@mail.example.org> <ticket-123@mail.example.org>');
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain[\s\S]*Plain text version/);
    expect(mail.raw).toMatch(/Content-Type: text\/html[\s\S]*<p>HTML <b>version<\/b><\/p>/);
  });

  it('sends body alone as text/plain from the bare channel address', async () => {
    const { token } = await channelWithToken({ type: 'email', address: 'news@example.com', provider: smtpProvider() });
    const res = await send(token, { to: 'carla@example.org', subject: 'Hi', body: 'Just text' });
    expect(res.status).toBe(200);
    const mail = smtp.mails[0]!;
    expect(mail.headers.from).toBe('news@example.com');
    expect(mail.headers['content-type']).toMatch(/^text\/plain/);
    expect(mail.raw).toContain('Just text');
    expect(mail.headers).not.toHaveProperty('in-reply-to');
  });

  it('answers 502 PROVIDER_ERROR and refunds when the server refuses the mail', async () => {
    const { projectId, channelId, token } = await channelWithToken({
      type: 'email',
      address: 'support@example.com',
      provider: smtpProvider(),
      credits: 1,
    });
    smtp.setRefuse(true);
    const res = await send(token, { to: 'x@example.org', subject: 'Hi', body: 'text' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, error: 'PROVIDER_ERROR', requestId: expect.any(String) });
    expect(res.body.message).toContain('550');
    expect(await creditsOf(projectId, channelId)).toBe(1);
  });

  it('answers 502 without the words of a listener that is not an SMTP server, and refunds', async () => {
    const cache = createServer((socket) => {
      socket.on('error', () => {});
      socket.end('554 internal-db-7.corp.local Redis 7.2 AUTH required\r\n');
    });
    cache.listen(0, '127.0.0.1');
    await once(cache, 'listening');
    try {
      const { projectId, channelId, token } = await channelWithToken({
        type: 'email',
        address: 'support@example.com',
        credits: 1,
        provider: { kind: 'smtp', host: '127.0.0.1', port: (cache.address() as AddressInfo).port },
      });
      const res = await send(token, { to: 'x@example.org', subject: 'Hi', body: 'text' });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({
        error: 'PROVIDER_ERROR',
        message: 'The email provider failed: The host did not answer as an SMTP server.',
      });
      expect(JSON.stringify(res.body)).not.toMatch(/internal-db|Redis/);
      expect(await creditsOf(projectId, channelId)).toBe(1);
    } finally {
      await new Promise((r) => cache.close(r));
    }
  });

  it('refuses to send in clear when the channel does not allow plaintext and the server offers no STARTTLS', async () => {
    const { token } = await channelWithToken({
      type: 'email',
      address: 'support@example.com',
      provider: { ...smtpProvider(), allowPlaintext: undefined },
    });
    const res = await send(token, { to: 'x@example.org', subject: 'Hi', body: 'text' });
    expect(res.status).toBe(502);
    expect(res.body.message).toMatch(/does not offer STARTTLS/);
    expect(smtp.mails).toHaveLength(0);
  });

  it('answers 502 when the SMTP server cannot be reached', async () => {
    const { token } = await channelWithToken({
      type: 'email',
      address: 'support@example.com',
      provider: { kind: 'smtp', host: '127.0.0.1', port: 1 },
    });
    const res = await send(token, { to: 'x@example.org', subject: 'Hi', body: 'text' });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('PROVIDER_ERROR');
  });
});

describe('Twilio provider', () => {
  it('posts To, From, Body and one MediaUrl per media URL with Basic auth', async () => {
    const { token } = await channelWithToken(smsChannel({ provider: twilioProvider() }));
    const res = await send(token, {
      to: '+5511988887777',
      body: 'Your code is 1234 ✓',
      mediaUrls: ['https://media.example.com/a.png', 'https://media.example.com/b.jpg'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(twilio.requests).toHaveLength(1);
    const req = twilio.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/2010-04-01/Accounts/AC0123456789abcdef/Messages.json');
    expect(req.headers.authorization).toBe(
      `Basic ${Buffer.from('AC0123456789abcdef:twilio-secret').toString('base64')}`,
    );
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(req.body);
    expect(form.get('To')).toBe('+5511988887777');
    expect(form.get('From')).toBe('+5511999990000');
    expect(form.get('Body')).toBe('Your code is 1234 ✓');
    expect(form.getAll('MediaUrl')).toEqual(['https://media.example.com/a.png', 'https://media.example.com/b.jpg']);
  });

  it("answers 502 PROVIDER_ERROR with Twilio's reason, and refunds the credit", async () => {
    const { projectId, channelId, token } = await channelWithToken(
      smsChannel({ provider: twilioProvider(), credits: 2 }),
    );
    twilio.setMode('fail', {
      status: 400,
      body: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 },
    });
    const res = await send(token, { to: '+5511988887777', body: 'x' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, error: 'PROVIDER_ERROR' });
    expect(res.body.message).toContain('21211');
    expect(res.body.message).not.toContain('twilio-secret');
    expect(await creditsOf(projectId, channelId)).toBe(2);
  });

  it('answers 502 within the deadline when Twilio hangs, and refunds the credit', async () => {
    const { projectId, channelId, token } = await channelWithToken(
      smsChannel({ provider: twilioProvider(), credits: 1 }),
    );
    twilio.setMode('hang');
    const started = Date.now();
    const res = await send(token, { to: '+5511988887777', body: 'x' });
    const took = Date.now() - started;
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('PROVIDER_ERROR');
    expect(res.body.message).toMatch(/in time/);
    expect(took).toBeGreaterThanOrEqual(PROVIDER_TIMEOUT_MS - 50);
    expect(took).toBeLessThan(PROVIDER_TIMEOUT_MS + 3000);
    expect(await creditsOf(projectId, channelId)).toBe(1);
  });
});

describe('WhatsApp Cloud provider', () => {
  it('sends the text, then one document or image message per file, with the access token', async () => {
    const target = await channelWithToken({
      type: 'whatsapp',
      address: '5511999990000',
      provider: whatsappProvider(),
    });
    const { token } = target;
    await openWhatsAppWindow(svc, { ...target, cloud }, '5511988887777');
    const res = await send(token, {
      number: '5511988887777',
      message: 'Here are your documents',
      files: ['https://files.example.com/docs/contract%20v2.pdf', 'https://files.example.com/img/photo.JPG'],
      name: 'Maria',
      sector: 'sales',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(whatsapp.requests.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/v21.0/1098765/messages'],
      ['POST', '/v21.0/1098765/messages'],
      ['POST', '/v21.0/1098765/messages'],
    ]);
    for (const r of whatsapp.requests) {
      expect(r.headers.authorization).toBe('Bearer wa-access-token');
      expect(r.headers['content-type']).toBe('application/json');
    }
    const bodies = whatsapp.requests.map((r) => JSON.parse(r.body));
    expect(bodies[0]).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511988887777',
      type: 'text',
      text: { body: 'Here are your documents' },
    });
    expect(bodies[1]).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511988887777',
      type: 'document',
      document: { link: 'https://files.example.com/docs/contract%20v2.pdf', filename: 'contract v2.pdf' },
    });
    expect(bodies[2]).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511988887777',
      type: 'image',
      image: { link: 'https://files.example.com/img/photo.JPG' },
    });
  });

  it('answers 502 and refunds when a file message fails after the text went out', async () => {
    const target = await channelWithToken({
      type: 'whatsapp',
      address: '5511999990000',
      provider: whatsappProvider(),
      credits: 1,
    });
    const { projectId, channelId, token } = target;
    await openWhatsAppWindow(svc, { ...target, cloud }, '5511988887777');
    whatsapp.setMode('fail', {
      status: 400,
      body: { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100 } },
      after: 1,
    });
    const res = await send(token, {
      number: '5511988887777',
      message: 'hi',
      files: ['https://files.example.com/a.pdf'],
    });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('PROVIDER_ERROR');
    expect(res.body.message).toContain('Invalid parameter');
    expect(whatsapp.requests).toHaveLength(2);
    expect(await creditsOf(projectId, channelId)).toBe(1);
  });

  it('answers 502 when the API hangs', async () => {
    const target = await channelWithToken({
      type: 'whatsapp',
      address: '5511999990000',
      provider: whatsappProvider(),
    });
    const { token } = target;
    await openWhatsAppWindow(svc, { ...target, cloud }, '5511988887777');
    whatsapp.setMode('hang');
    const res = await send(token, { number: '5511988887777', message: 'hi' });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('PROVIDER_ERROR');
  });
});

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

  it('checks in the contract order', async () => {
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
