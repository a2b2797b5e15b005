import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { SES_OBJECT_PREFIX } from '#shared/contract/buckets.ts';
import { consistently } from '#test/support/eventually.ts';
import { svc, projectId, channels, tokens, events, waitForEvents, useIngressChannels } from './ingress-support.ts';

/** Channel ingress, seen from outside: the sandbox's simulated inbound, and mail through the SMTP listener. */
// The one ingress file that sends mail: a mailbox of its own, so the other ingress files' projects get none of it.
useIngressChannels('mail-desk@inbound.example.com');

describe('sandbox simulation', () => {
  it('a simulated reply and receipts arrive as the providers’ would', async () => {
    const base = `/projects/${projectId}/channels/${channels['sandbox-sms'].channelId}/sandbox`;
    const reply = await svc.admin('POST', `${base}/inbound`, { from: '+5511955554444', text: 'yes please' });
    expect(reply.status).toBe(202);
    expect(reply.body.eventId).toMatch(/^evt_/);
    const [received] = await waitForEvents((e) => e.id === reply.body.eventId, 1);
    expect(received).toMatchObject({
      type: 'message.received',
      data: {
        direction: 'inbound',
        provider: 'sandbox',
        from: '+5511955554444',
        to: '+15005550008',
        text: 'yes please',
      },
    });

    const sent = (await (await svc.send(tokens['sandbox-sms']!, { to: '+5511955554444', body: 'hi' })).json()) as any;
    expect((await svc.admin('POST', `${base}/status`, { messageId: sent.messageId, status: 'delivered' })).status).toBe(
      202,
    );
    expect((await svc.admin('POST', `${base}/status`, { messageId: sent.messageId, status: 'delivered' })).status).toBe(
      202,
    );
    const failed = await svc.admin('POST', `${base}/status`, {
      messageId: sent.messageId,
      status: 'failed',
      error: 'handset off',
    });
    expect(failed.status).toBe(202);
    await waitForEvents((e) => e.data.messageId === sent.messageId && e.type === 'message.failed', 1);
    await consistently(
      () =>
        expect(events((e) => e.data.messageId === sent.messageId).map((e) => [e.type, e.data.error])).toEqual([
          ['message.sent', undefined],
          ['message.delivered', undefined],
          ['message.failed', 'handset off'],
        ]),
      300,
    );

    expect((await svc.admin('POST', `${base}/status`, { messageId: 'msg_unknown', status: 'read' })).status).toBe(404);
    expect((await svc.admin('POST', `${base}/status`, { messageId: sent.messageId, status: 'bogus' })).status).toBe(
      400,
    );
    const twilioBase = `/projects/${projectId}/channels/${channels.twilio.channelId}/sandbox`;
    const conflict = await svc.admin('POST', `${twilioBase}/inbound`, { from: '+1', text: 'x' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('CONFLICT');
  });
});

describe('inbound mail', () => {
  const transport = () =>
    nodemailer.createTransport({ host: '127.0.0.1', port: svc.smtpPort, secure: false, ignoreTLS: true });

  it('refuses mail for an address that is no channel’s, at RCPT', async () => {
    const error = await transport()
      .sendMail({ from: 'a@example.org', to: 'nobody@inbound.example.com', subject: 'x', text: 'x' })
      .catch((e: unknown) => e as { responseCode?: number; code?: string });
    expect((error as { responseCode?: number }).responseCode).toBe(550);
  });

  it('a multipart mail with an attachment and a Latin-1 body becomes message.received, once per mail sent', async () => {
    const mail = {
      from: '"José Álvares" <jose@example.org>',
      to: 'Support <mail-desk@inbound.example.com>',
      cc: 'finance@example.org',
      subject: 'Fatura de março',
      text: 'Olá, segue a fatura. Obrigado — José',
      html: '<p>Olá, segue a <b>fatura</b>.</p><script>alert(1)</script>',
      textEncoding: 'quoted-printable' as const,
      messageId: '<fatura-123@example.org>',
      inReplyTo: '<our-first-mail@inbound.example.com>',
      references: ['<our-first-mail@inbound.example.com>'],
      attachments: [
        { filename: 'fatura.pdf', content: Buffer.from('%PDF-1.4 fake invoice'), contentType: 'application/pdf' },
      ],
    };
    // Sent twice: two mails accepted (250 each), as SES would take them: two events, whatever their Message-ID says.
    // Only a redelivery of the same stored mail is one event (below).
    await transport().sendMail(mail);
    await transport().sendMail(mail);
    const [received, again] = await waitForEvents(
      (e) => e.type === 'message.received' && e.channel.id === channels.mailbox.channelId,
      2,
    );
    expect(again.data.messageId).not.toBe(received.data.messageId);
    expect(again.data.providerMessageId).toBe('<fatura-123@example.org>');
    expect(received.data).toEqual({
      messageId: expect.stringMatching(/^msg_/),
      conversationId: expect.stringMatching(/^conv_/),
      direction: 'inbound',
      provider: 'smtp',
      providerMessageId: '<fatura-123@example.org>',
      from: 'jose@example.org',
      to: 'mail-desk@inbound.example.com',
      text: 'Olá, segue a fatura. Obrigado — José',
      receivedAt: expect.any(String),
      subject: 'Fatura de março',
      html: '<p>Olá, segue a <b>fatura</b>.</p><script>alert(1)</script>',
      cc: ['finance@example.org'],
      inReplyTo: '<our-first-mail@inbound.example.com>',
      references: ['<our-first-mail@inbound.example.com>'],
      attachments: [{ fileName: 'fatura.pdf', contentType: 'application/pdf', bytes: 21 }],
      media: [
        {
          contentType: 'application/pdf',
          size: 21,
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          url: expect.any(String),
          expiresAt: expect.any(String),
          fileName: 'fatura.pdf',
        },
      ],
      // The local listener checks nothing of the sender.
      authentication: { spf: 'unknown', dkim: 'unknown', dmarc: 'unknown' },
    });

    const latin1 = [
      'From: Ana <ana@example.org>',
      'To: mail-desk@inbound.example.com',
      'Subject: =?ISO-8859-1?Q?Solicita=E7=E3o?=',
      'Message-ID: <latin1-1@example.org>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=ISO-8859-1',
      'Content-Transfer-Encoding: 8bit',
      '',
      '',
    ].join('\r\n');
    // A Latin-1 body, byte for byte (nodemailer itself would encode in UTF-8).
    await transport().sendMail({
      envelope: { from: 'ana@example.org', to: ['mail-desk@inbound.example.com'] },
      raw: Buffer.concat([Buffer.from(latin1, 'latin1'), Buffer.from('Não consigo acessar a conta.\r\n', 'latin1')]),
    });
    const [latin] = await waitForEvents((e) => e.data.providerMessageId === '<latin1-1@example.org>', 1);
    expect(latin.data).toMatchObject({ subject: 'Solicitação', text: 'Não consigo acessar a conta.', attachments: [] });
    // Sent twice over SMTP: two deliveries to the transport, two events (not deduplicated on Message-ID).
    await consistently(
      () => expect(events((e) => e.data.providerMessageId === '<fatura-123@example.org>')).toHaveLength(2),
      500,
    );
  });

  /**
   * What SES does on AWS, done by hand: the raw mail stored under SES's prefix, then its receipt notification on the
   * `inbound` queue (SNS to SQS delivers at least once, so the same notification may come twice).
   */
  async function deliverAsSes(
    sesMessageId: string,
    raw: string,
    verdicts: Record<string, string> = {},
  ): Promise<{ queue: () => Promise<void> }> {
    const { region, awsEndpoint, bucketNames, queueUrls } = svc.emulators;
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const objectKey = `${SES_OBJECT_PREFIX}${sesMessageId}`;
    const s3 = new S3Client({ region, endpoint: awsEndpoint, credentials, forcePathStyle: true });
    await s3.send(new PutObjectCommand({ Bucket: bucketNames.transfer, Key: objectKey, Body: raw }));
    s3.destroy();
    const notification = {
      notificationType: 'Received',
      mail: { timestamp: new Date().toISOString(), messageId: sesMessageId, destination: [channels.mailbox.address] },
      receipt: {
        timestamp: new Date().toISOString(),
        recipients: [channels.mailbox.address],
        ...Object.fromEntries(Object.entries(verdicts).map(([name, status]) => [`${name}Verdict`, { status }])),
        action: { type: 'S3', bucketName: bucketNames.transfer, objectKey },
      },
    };
    return {
      async queue() {
        const sqs = new SQSClient({ region, endpoint: awsEndpoint, credentials });
        await sqs.send(
          new SendMessageCommand({ QueueUrl: queueUrls.inbound, MessageBody: JSON.stringify(notification) }),
        );
        sqs.destroy();
      },
    };
  }

  const rawMail = (messageId: string, subject: string, from = 'carla@example.org') =>
    [
      `From: Carla <${from}>`,
      `To: ${channels.mailbox.address}`,
      `Subject: ${subject}`,
      `Message-ID: ${messageId}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${subject} body`,
      '',
    ].join('\r\n');

  it('one SES delivery notified twice is one event; another delivery with the same Message-ID is another', async () => {
    const first = await deliverAsSes('ses-redelivered-1', rawMail('<claimed@example.org>', 'Primeira'), {
      spam: 'PASS',
      virus: 'PASS',
      spf: 'PASS',
      dkim: 'PASS',
      dmarc: 'PASS',
    });
    await first.queue();
    await first.queue();
    // A later genuine mail whose sender reused the Message-ID: not suppressed.
    await (await deliverAsSes('ses-redelivered-2', rawMail('<claimed@example.org>', 'Segunda'))).queue();
    const received = await waitForEvents((e) => e.data.providerMessageId === '<claimed@example.org>', 2);
    expect(received.map((e) => e.data.subject).sort()).toEqual(['Primeira', 'Segunda']);
    expect(received.find((e) => e.data.subject === 'Primeira').data.authentication).toEqual({
      spf: 'pass',
      dkim: 'pass',
      dmarc: 'pass',
    });
    await consistently(
      () => expect(events((e) => e.data.providerMessageId === '<claimed@example.org>')).toHaveLength(2),
      1_000,
    );
  });

  it('SES spam or virus FAIL: dropped, no event; a spoofed sender (SPF and DMARC FAIL) arrives flagged', async () => {
    await (
      await deliverAsSes('ses-spam-1', rawMail('<spam@example.org>', 'Ganhe'), { spam: 'FAIL', virus: 'PASS' })
    ).queue();
    await (
      await deliverAsSes('ses-virus-1', rawMail('<virus@example.org>', 'Anexo'), { spam: 'PASS', virus: 'FAIL' })
    ).queue();
    await (
      await deliverAsSes('ses-spoofed-1', rawMail('<spoof@example.org>', 'Banco', 'ceo@bank.example'), {
        spam: 'PASS',
        virus: 'PASS',
        spf: 'FAIL',
        dkim: 'GRAY',
        dmarc: 'FAIL',
      })
    ).queue();
    const [spoofed] = await waitForEvents((e) => e.data.providerMessageId === '<spoof@example.org>', 1);
    expect(spoofed.data).toMatchObject({
      from: 'ceo@bank.example',
      authentication: { spf: 'fail', dkim: 'none', dmarc: 'fail' },
    });
    await consistently(
      () =>
        expect(events((e) => ['<spam@example.org>', '<virus@example.org>'].includes(e.data.providerMessageId))).toEqual(
          [],
        ),
      1_000,
    );
  });
});
