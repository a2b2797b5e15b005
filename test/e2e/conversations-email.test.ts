import { describe, expect, it } from 'vitest';
import { consistently, eventually } from '#test/support/eventually.ts';
import { dsnMail } from './channel-support.ts';
import { svc, smtp, project, send, api, mailer, nextSeq, useConversationDoubles } from './conversations-support.ts';

/** Conversations, seen from outside: mail threads, List-Unsubscribe and bounces, and a conversation's messages. */
useConversationDoubles();

describe('email: threads, List-Unsubscribe, bounces', () => {
  async function smtpChannel(p: Awaited<ReturnType<typeof project>>) {
    return p.channel({
      type: 'email',
      address: `shop-${Date.now()}-${nextSeq()}@inbound.example.com`,
      provider: { kind: 'smtp', host: '127.0.0.1', port: smtp.port, allowPlaintext: true },
    });
  }

  it('a reply joins the conversation of the mail it answers; sends carry List-Unsubscribe', async () => {
    const p = await project();
    const ch = await smtpChannel(p);
    const sent = await send(ch.token, { to: 'Cliente@Example.org', subject: 'Seu pedido', body: 'Chegou.' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const mail = await eventually(
      async () => smtp.mails.find((m) => m.rcptTo.some((r) => r.toLowerCase() === 'cliente@example.org')),
      5_000,
      `the mail (got ${smtp.mails.map((m) => m.rcptTo.join(',')).join('; ')})`,
    );
    // The recipient's own unsubscribe address: the channel's mailbox with a tag only this recipient's copy carries.
    const [local, domain] = ch.address.split('@');
    const unsubscribeAddress = new RegExp(
      `^<mailto:(${local}\\+unsub-[a-z2-7]{26}@${domain})\\?subject=unsubscribe>$`,
    ).exec(mail.headers['list-unsubscribe'] ?? '')?.[1];
    expect(unsubscribeAddress, mail.headers['list-unsubscribe']).toBeDefined();
    const [sentEvent] = await p.waitFor((e) => e.type === 'message.sent');
    const messageId = mail.headers['message-id']!;

    // The customer answers from another address, in the thread: same conversation.
    await mailer().sendMail({
      from: 'financeiro@example.org',
      to: ch.address,
      subject: 'Re: Seu pedido',
      text: 'Obrigado',
      inReplyTo: messageId,
      references: [messageId],
    });
    // A new mail from the same customer, not a reply: the contact's own conversation.
    await mailer().sendMail({ from: 'cliente@example.org', to: ch.address, subject: 'Outra coisa', text: 'Oi' });
    const got = await p.waitFor((e) => e.type === 'message.received', 2);
    const reply = got.find((e) => e.data.subject === 'Re: Seu pedido');
    const fresh = got.find((e) => e.data.subject === 'Outra coisa');
    expect(reply.data.conversationId).toBe(sentEvent.data.conversationId);
    expect(fresh.data.conversationId).toBe(
      (await api(ch.token, '/conversations/cliente@example.org')).body.conversationId,
    );
    expect(fresh.data.conversationId).toBe(sentEvent.data.conversationId);
    expect(reply.data.conversationId).not.toBe(
      (await api(ch.token, '/conversations/financeiro@example.org')).body.conversationId,
    );

    // The List-Unsubscribe mailto, as a mail client follows it: the contact is suppressed.
    await mailer().sendMail({ from: 'cliente@example.org', to: unsubscribeAddress, subject: 'unsubscribe', text: '' });
    const [optedOut] = await p.waitFor((e) => e.type === 'contact.opted_out');
    expect(optedOut.data).toMatchObject({ contact: 'cliente@example.org', reason: 'keyword', keyword: 'unsubscribe' });
    const refused = await send(ch.token, { to: ['ok@example.org', 'CLIENTE@example.org'], subject: 'x', body: 'x' });
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual([
      { path: 'to.1', message: expect.stringContaining('cliente@example.org'), code: 'opted_out' },
    ]);
  });

  it('a DSN about a mail this channel sent suppresses the bounced recipient (reason bounce); one about any other mail does not', async () => {
    const p = await project();
    const ch = await smtpChannel(p);
    const sent = await send(ch.token, { to: 'gone@customer.example.org', subject: 'Pedido', body: 'x' });
    expect(sent.status).toBe(200);
    const mail = await eventually(
      async () => smtp.mails.find((m) => m.rcptTo.includes('gone@customer.example.org') && m.raw.includes(ch.address)),
      5_000,
    );
    const dsn = (originalMessageId: string, recipient: string) => dsnMail(ch.address, originalMessageId, [recipient]);
    // A forged report about a mail this channel never sent: received, but nobody is suppressed.
    await mailer().sendMail({
      envelope: { from: '', to: [ch.address] },
      raw: dsn('<never-sent@elsewhere.example.org>', 'victim@customer.example.org'),
    });
    await mailer().sendMail({
      envelope: { from: '', to: [ch.address] },
      raw: dsn(mail.headers['message-id']!, 'gone@customer.example.org'),
    });
    await p.waitFor((e) => e.type === 'message.received', 2);
    const [bounced] = await p.waitFor((e) => e.type === 'contact.opted_out');
    expect(bounced.data).toEqual({
      contact: 'gone@customer.example.org',
      conversationId: (await api(ch.token, '/conversations/gone@customer.example.org')).body.conversationId,
      reason: 'bounce',
    });
    await consistently(() => expect(p.events((e) => e.type === 'contact.opted_out')).toHaveLength(1), 300);
    const refused = await send(ch.token, { to: 'gone@customer.example.org', subject: 'again', body: 'x' });
    expect(refused.status).toBe(409);
    expect(refused.body.details[0].message).toContain('bounced');
    expect((await send(ch.token, { to: 'victim@customer.example.org', subject: 'ok', body: 'x' })).status).toBe(200);
    expect(
      (await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}/suppressions`)).body.items,
    ).toEqual([{ contact: 'gone@customer.example.org', reason: 'bounce', at: expect.any(String) }]);
  });
});

describe('a conversation’s messages', () => {
  it('both directions, newest first, a page at a time, for the custom token’s channel only', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'sms', address: '+15005550033' });
    const other = await p.channel({ type: 'sms', address: '+15005550034' });
    const base = `/projects/${p.projectId}/channels/${ch.channelId}`;
    const contact = '+5511977770050';
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: contact, text: 'um' });
    await p.waitFor((e) => e.type === 'message.received');
    const sent = await send(ch.token, { to: contact, body: 'dois' });
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: contact, text: 'três' });
    await p.waitFor((e) => e.type === 'message.received', 2);
    const page = await eventually(async () => {
      const r = await api(ch.token, `/conversations/${encodeURIComponent(contact)}/messages?limit=2`);
      return r.body.items?.length === 2 ? r : undefined;
    });
    expect(page.body.items.map((m: any) => [m.direction, m.text])).toEqual([
      ['inbound', 'três'],
      ['outbound', 'dois'],
    ]);
    expect(page.body.items[1]).toMatchObject({ messageId: sent.body.messageId, status: 'sent', contact });
    const rest = await api(
      ch.token,
      `/conversations/${encodeURIComponent(contact)}/messages?limit=2&cursor=${page.body.nextCursor}`,
    );
    expect(rest.body.items.map((m: any) => m.text)).toEqual(['um']);
    expect(rest.body.nextCursor ?? null).toBeNull();
    expect(new Set([...page.body.items, ...rest.body.items].map((m: any) => m.conversationId)).size).toBe(1);
    // Another channel's token sees none of it, and a cursor of another list is refused.
    expect((await api(other.token, `/conversations/${encodeURIComponent(contact)}/messages`)).body.items).toEqual([]);
    expect(
      (await api(other.token, `/conversations/${encodeURIComponent(contact)}/messages?cursor=${page.body.nextCursor}`))
        .status,
    ).toBe(400);
  });
});
