import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  media,
  cdn,
  metaApi,
  ACCESS_TOKEN,
  TWILIO_SID,
  TWILIO_TOKEN,
  png,
  sha256,
  project,
  api,
  postMeta,
  postTwilio,
  mailer,
  whatsAppCloud,
  unixSeconds,
  metaLookup,
  useConversationDoubles,
} from './conversations-support.ts';

/** Conversations, seen from outside: inbound media (WhatsApp Cloud, Twilio MMS, mail), stored and offered by URL. */
useConversationDoubles();

describe('inbound media', () => {
  it('WhatsApp: Meta’s media id → URL → bytes with the access token, stored, offered as a working presigned URL, re-signed on GET', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const image = png(48_000);
    const mediaId = `${Date.now()}1`;
    // Meta's two steps: the media object (its URL on the lookaside host), then the bytes, both with the token.
    metaLookup(mediaId, {
      url: `${media.baseUrl}/lookaside/${mediaId}`,
      mime_type: 'image/png',
      sha256: sha256(image),
      file_size: image.length,
    });
    media.routes.set(`/lookaside/${mediaId}`, (req) =>
      req.headers.authorization === `Bearer ${ACCESS_TOKEN}`
        ? { status: 200, headers: { 'content-type': 'image/png' }, body: image }
        : { status: 401, body: Buffer.from('{}') },
    );
    const wamid = `wamid.IMG${Date.now()}`;
    await postMeta(ch.channelId, ch.phoneNumberId, {
      messages: [
        {
          from: '5511988880005',
          id: wamid,
          timestamp: unixSeconds(Date.now()),
          type: 'image',
          image: { caption: 'o recibo', mime_type: 'image/png', sha256: sha256(image), id: mediaId },
        },
      ],
    });
    const [received] = await p.waitFor((e) => e.type === 'message.received');
    expect(received.data.text).toBe('o recibo');
    expect(received.data.media).toEqual([
      {
        contentType: 'image/png',
        size: image.length,
        sha256: sha256(image),
        url: expect.stringMatching(/^http/),
        expiresAt: expect.any(String),
        providerMediaId: mediaId,
      },
    ]);
    const expires = Date.parse(received.data.media[0].expiresAt) - Date.now();
    expect(expires).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    expect(expires).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
    const fetched = await fetch(received.data.media[0].url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(image)).toBe(true);
    // Fetched once, with the channel's token, from Meta's lookup and the media host.
    expect(metaApi.requests.filter((r) => r.path === `/v21.0/${mediaId}`).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${ACCESS_TOKEN}`,
    ]);
    expect(media.requests.filter((r) => r.path === `/lookaside/${mediaId}`)).toHaveLength(1);

    const read = await api(ch.token, `/messages/${received.data.messageId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      messageId: received.data.messageId,
      conversationId: received.data.conversationId,
      direction: 'inbound',
      text: 'o recibo',
      media: [{ contentType: 'image/png', size: image.length, sha256: sha256(image), providerMediaId: mediaId }],
    });
    const again = await fetch(read.body.media[0].url);
    expect(Buffer.from(await again.arrayBuffer()).equals(image)).toBe(true);
  });

  it('a media item that cannot be fetched, is over 16 MB or of a refused type is media[].error; the message still arrives', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const stamp = Date.now();
    const gone = `${stamp}2`;
    const huge = `${stamp}3`;
    const exe = `${stamp}4`;
    // `gone` has no lookup route: Meta answers 404.
    metaLookup(huge, {
      url: `${media.baseUrl}/lookaside/${huge}`,
      mime_type: 'video/mp4',
      file_size: 17 * 1024 * 1024,
    });
    const message = (id: string, type: string, content: Record<string, unknown>) => ({
      from: '5511988880006',
      id: `wamid.${id}`,
      timestamp: unixSeconds(Date.now()),
      type,
      [type]: content,
    });
    await postMeta(ch.channelId, ch.phoneNumberId, {
      messages: [
        message(gone, 'image', { mime_type: 'image/jpeg', id: gone }),
        message(huge, 'video', { mime_type: 'video/mp4', id: huge }),
        message(exe, 'document', { mime_type: 'application/x-msdownload', filename: 'setup.exe', id: exe }),
      ],
    });
    const got = await p.waitFor((e) => e.type === 'message.received', 3);
    const byId = Object.fromEntries(got.map((e) => [e.data.providerMessageId, e.data.media]));
    expect(byId[`wamid.${gone}`]).toEqual([
      { contentType: 'image/jpeg', error: expect.stringContaining('404'), providerMediaId: gone },
    ]);
    expect(byId[`wamid.${huge}`]).toEqual([
      { contentType: 'video/mp4', error: expect.stringContaining('larger than 16777216 bytes'), providerMediaId: huge },
    ]);
    expect(byId[`wamid.${exe}`]).toEqual([
      {
        contentType: 'application/x-msdownload',
        error: expect.stringContaining('not accepted'),
        fileName: 'setup.exe',
        providerMediaId: exe,
      },
    ]);
    // Nothing was downloaded for the oversized or refused items.
    expect(media.requests.some((r) => r.path === `/lookaside/${huge}`)).toBe(false);
    expect(metaApi.requests.some((r) => r.path === `/v21.0/${exe}`)).toBe(false);
  });

  it('Twilio MMS: NumMedia/MediaUrl0 fetched with the account’s basic auth, the redirect followed without it', async () => {
    const p = await project();
    const ch = await p.channel({
      type: 'sms',
      address: '+15005550032',
      provider: { kind: 'twilio', accountSid: TWILIO_SID, authToken: TWILIO_TOKEN, baseUrl: media.baseUrl },
    });
    const photo = png(20_000);
    const sid = `MM${randomBytes(16).toString('hex')}`;
    const mediaPath = `/2010-04-01/Accounts/${TWILIO_SID}/Messages/${sid}/Media/ME${randomBytes(16).toString('hex')}`;
    const cdnPath = `/media-cdn/${sid}`;
    media.routes.set(mediaPath, (req) =>
      req.headers.authorization === `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`
        ? { status: 307, headers: { location: `${cdn.baseUrl}${cdnPath}` } }
        : { status: 401 },
    );
    cdn.routes.set(cdnPath, () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: photo }));
    await postTwilio(ch.channelId, {
      AccountSid: TWILIO_SID,
      ApiVersion: '2010-04-01',
      Body: 'foto',
      From: '+5511977770040',
      MediaContentType0: 'image/png',
      MediaUrl0: `${media.baseUrl}${mediaPath}`,
      MessageSid: sid,
      NumMedia: '1',
      NumSegments: '1',
      SmsMessageSid: sid,
      SmsSid: sid,
      SmsStatus: 'received',
      To: '+15005550032',
    });
    const [received] = await p.waitFor((e) => e.type === 'message.received');
    expect(received.data.media).toEqual([
      {
        contentType: 'image/png',
        size: photo.length,
        sha256: sha256(photo),
        url: expect.any(String),
        expiresAt: expect.any(String),
        providerUrl: `${media.baseUrl}${mediaPath}`,
      },
    ]);
    expect(Buffer.from(await (await fetch(received.data.media[0].url)).arrayBuffer()).equals(photo)).toBe(true);
    // The credentials went to Twilio's origin only, never to the host its redirect named.
    expect(cdn.requests.filter((r) => r.path === cdnPath).map((r) => r.headers.authorization)).toEqual([undefined]);
  });

  it('mail: MIME attachments through the SMTP listener become media with working URLs', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'email', address: `media-${Date.now()}@inbound.example.com` });
    const photo = png(30_000);
    const pdf = Buffer.from('%PDF-1.4\n% a small document\n');
    await mailer().sendMail({
      from: 'ana@example.org',
      to: ch.address,
      subject: 'Fotos',
      text: 'Seguem as fotos',
      attachments: [
        { filename: 'foto.png', content: photo, contentType: 'image/png' },
        { filename: 'nota fiscal.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'run.sh', content: Buffer.from('#!/bin/sh\n'), contentType: 'application/x-sh' },
      ],
    });
    const [received] = await p.waitFor((e) => e.type === 'message.received');
    const [image, doc, script] = received.data.media;
    expect(image).toMatchObject({
      contentType: 'image/png',
      size: photo.length,
      sha256: sha256(photo),
      fileName: 'foto.png',
    });
    expect(doc).toMatchObject({ contentType: 'application/pdf', size: pdf.length, fileName: 'nota fiscal.pdf' });
    expect(script).toEqual({
      contentType: 'application/x-sh',
      error: expect.stringContaining('not accepted'),
      fileName: 'run.sh',
    });
    expect(Buffer.from(await (await fetch(image.url)).arrayBuffer()).equals(photo)).toBe(true);
    const download = await fetch(doc.url);
    expect(download.headers.get('content-disposition')).toContain('attachment');
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
    // The metadata list is as before, every attachment.
    expect(received.data.attachments.map((a: any) => a.fileName)).toEqual(['foto.png', 'nota fiscal.pdf', 'run.sh']);
  });
});
