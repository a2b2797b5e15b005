/**
 * The crash ledger's inputs from the channels' providers: Twilio status callbacks and inbound messages (signed as
 * Twilio signs them), WhatsApp Cloud inbound messages (signed as Meta signs them) and inbound mail over SMTP.
 */
import nodemailer from 'nodemailer';
import { metaEnvelope, sendMetaWebhook } from '#test/support/meta-webhook.ts';
import { postTwilioCallback } from '#test/support/twilio-callback.ts';
import type { Tally } from './tally.ts';
import { MAIL_KIND } from './types.ts';
import type { World } from './world.ts';

/** The WhatsApp Cloud channel's number (the main project's). */
const whatsappNumber = { phoneNumberId: 'PN1', displayNumber: '5511999990000' };

export function channelInputs(world: World, tally: Tally) {
  const { base, main, smtpPort } = world;
  const { ack, untilAcknowledged } = tally;
  const twilioPost = (params: Record<string, string>) =>
    postTwilioCallback(`${base}/inbound/twilio/${main.twilioChannelId}`, 'tok', params, AbortSignal.timeout(10_000));
  return {
    async status() {
      const sent = tally.sentSids.shift();
      if (!sent) return void (await new Promise((r) => setTimeout(r, 50)));
      const ok = await untilAcknowledged(async () => {
        const res = await twilioPost({
          AccountSid: 'AC1',
          MessageSid: sent.sid,
          MessageStatus: 'delivered',
          To: '+5511988887777',
          From: '+15005550006',
        });
        return res.status === 200;
      });
      if (ok) ack('status callback → message.delivered', `message.delivered:${sent.messageId}`);
    },
    async twilioInbound() {
      const messageSid = `SMin${tally.next()}x${Date.now()}`;
      const sentAt = Date.now();
      const ok = await untilAcknowledged(async () => {
        const res = await twilioPost({
          AccountSid: 'AC1',
          MessageSid: messageSid,
          From: '+5511988887777',
          To: '+15005550006',
          Body: 'hello',
          NumMedia: '0',
        });
        return res.status === 200;
      });
      if (ok)
        ack('Twilio inbound → message.received', `message.received:${messageSid}`, {
          contact: 'twilio:+5511988887777',
          sentAt,
        });
    },
    async whatsappInbound() {
      const wamid = `wamid.crash${tally.next()}x${Date.now()}`;
      const message = {
        from: '5511988887777',
        id: wamid,
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: 'text',
        text: { body: 'oi' },
      };
      const contacts = [{ profile: { name: 'Ana' }, wa_id: '5511988887777' }];
      const raw = Buffer.from(JSON.stringify(metaEnvelope({ contacts, messages: [message] }, whatsappNumber)));
      const sentAt = Date.now();
      const ok = await untilAcknowledged(async () => {
        const signal = AbortSignal.timeout(10_000);
        const res = await sendMetaWebhook(base, main.whatsappChannelId, 'app-secret', raw, signal);
        return res.status === 200;
      });
      if (ok)
        ack('WhatsApp inbound → message.received', `message.received:${wamid}`, {
          contact: 'whatsapp:5511988887777',
          sentAt,
        });
    },
    async mail() {
      const n = tally.next();
      const subject = `crash mail ${n} ${Date.now()}`;
      const messageId = `<${n}.${Date.now()}@ledger.example.org>`;
      // One SMTP transaction: 250 is the acknowledgement. A mail refused or cut off is sent again as a new mail
      // (a transport retry is a new delivery), so only a 250 counts.
      const sentAt = Date.now();
      const ok = await untilAcknowledged(async () => {
        const transport = nodemailer.createTransport({
          host: '127.0.0.1',
          port: smtpPort,
          secure: false,
          ignoreTLS: true,
          connectionTimeout: 5_000,
          socketTimeout: 10_000,
        });
        try {
          // The same message each time, as an MTA retries it (same Message-ID): the transport may still store it twice.
          await transport.sendMail({
            from: 'ana@example.org',
            to: main.mailbox,
            subject,
            text: 'hello by mail',
            messageId,
          });
          return true;
        } finally {
          transport.close();
        }
      });
      if (ok) ack(MAIL_KIND, `message.received:subject:${subject}`, { contact: 'mail:ana', sentAt });
    },
  };
}
