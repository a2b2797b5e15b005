import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openWhatsAppWindow } from '#test/support/whatsapp-window.ts';
import {
  svc,
  smtp,
  twilio,
  whatsapp,
  PROVIDER_TIMEOUT_MS,
  send,
  channelWithToken,
  creditsOf,
  smsChannel,
  twilioProvider,
  whatsappProvider,
  cloud,
  smtpProvider,
  useSendDoubles,
} from './send-support.ts';

/** The send endpoint through each provider (sandbox, SMTP, Twilio, WhatsApp Cloud), as the provider receives it. */
useSendDoubles();

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
