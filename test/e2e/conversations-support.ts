import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { deflateSync } from 'node:zlib';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect } from 'vitest';
import { listenLocal } from '#test/support/listen.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { postTwilioCallback } from '#test/support/twilio-callback.ts';
import { startHttpDouble, startSmtpDouble } from './send-doubles.ts';
import { postMetaWebhook, projectWithWebhook } from './channel-support.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * The doubles and helpers of the conversations tests (conversations*.test.ts), each file calling
 * {@link useConversationDoubles} once. Conversations as a messaging platform runs them, seen from outside: sends
 * answered by the service, events read from a real webhook receiver (Standard Webhooks verified), providers played by
 * doubles that speak their real formats: Meta's media lookup and download and its template messages, Twilio's
 * `NumMedia`/`MediaUrl0` (with basic auth and a redirect to its media host), MIME attachments and a DSN through the
 * SMTP listener.
 */
export let svc: ServiceClient;
export let receiver: TestReceiver;
export let media: MediaDouble;
export let cdn: MediaDouble;
export let metaApi: Awaited<ReturnType<typeof startHttpDouble>>;
export let smtp: Awaited<ReturnType<typeof startSmtpDouble>>;

export const APP_SECRET = 'meta-app-secret-of-the-channel';
export const ACCESS_TOKEN = 'EAAG-conversations-token';
export const TWILIO_SID = 'AC00000000000000000000000000000030';
export const TWILIO_TOKEN = 'twilio-auth-token-30';

// ---------------------------------------------------------------------------------------------------------------
// Doubles and helpers

export interface MediaRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface MediaDouble {
  baseUrl: string;
  requests: MediaRequest[];
  /** path → what to answer. */
  routes: Map<string, (req: MediaRequest) => { status: number; headers?: Record<string, string>; body?: Buffer }>;
  close(): Promise<void>;
}

/** An HTTP server that answers bytes, JSON or redirects by path, and records who asked with which credentials. */
export async function startMediaDouble(): Promise<MediaDouble> {
  const requests: MediaRequest[] = [];
  const routes: MediaDouble['routes'] = new Map();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const recorded = { path, headers: req.headers };
    requests.push(recorded);
    const route = routes.get(path);
    const answer = route ? route(recorded) : { status: 404, body: Buffer.from('{"error":"not found"}') };
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body);
  });
  const { baseUrl, close } = await listenLocal(server);
  return { baseUrl, requests, routes, close };
}

/** A real PNG (1x1, grey) padded with a text chunk to about `size` bytes. */
export function png(size = 600): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  const padding = Buffer.concat([Buffer.from('pad\0'), randomBytes(Math.max(0, size - 90))]);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('tEXt', padding),
    chunk('IDAT', deflateSync(Buffer.from([0, 128]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function crc32(data: Buffer): number {
  let c = ~0;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A project with a general webhook to the receiver; its events, verified, in arrival order. */
export const project = () => projectWithWebhook(svc, receiver);

export async function send(token: string, body: unknown) {
  const res = await svc.send(token, body);
  return { status: res.status, body: (await res.json()) as any };
}

export async function api(token: string, path: string) {
  const res = await fetch(`${svc.baseUrl}/api/integration${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as any };
}

export function postMeta(channelId: string, phoneNumberId: string, value: Record<string, unknown>) {
  return postMetaWebhook(svc.baseUrl, { channelId, phoneNumberId, appSecret: APP_SECRET }, value);
}

export async function postTwilio(channelId: string, params: Record<string, string>) {
  const res = await postTwilioCallback(`${svc.baseUrl}/inbound/twilio/${channelId}`, TWILIO_TOKEN, params);
  expect(res.status).toBe(200);
}

export const mailer = () =>
  nodemailer.createTransport({ host: '127.0.0.1', port: svc.smtpPort, secure: false, ignoreTLS: true });

let phoneNumberSeq = 0;
/** A number no other test of the run uses (phone number ids, mail addresses). */
export const nextSeq = () => phoneNumberSeq++;
export async function whatsAppCloud(p: Awaited<ReturnType<typeof project>>) {
  const phoneNumberId = `30${Date.now()}${phoneNumberSeq++}`;
  const channel = await p.channel({
    type: 'whatsapp',
    address: '+15551230000',
    credits: 10,
    provider: {
      kind: 'whatsapp-cloud',
      phoneNumberId,
      accessToken: ACCESS_TOKEN,
      appSecret: APP_SECRET,
      baseUrl: metaApi.baseUrl,
    },
  });
  return Object.assign(channel, { phoneNumberId });
}

export const unixSeconds = (ms: number) => String(Math.floor(ms / 1000));

// ---------------------------------------------------------------------------------------------------------------

export function metaLookup(mediaId: string, object: Record<string, unknown>) {
  metaLookups.set(mediaId, object);
}
export const metaLookups = new Map<string, Record<string, unknown>>();

/** Registers the file's hooks: the service, the doubles and the receiver for its tests, closed after them. */
export function useConversationDoubles(): void {
  beforeAll(async () => {
    [svc, receiver, media, cdn, smtp] = await Promise.all([
      sharedService(),
      startReceiver(),
      startMediaDouble(),
      startMediaDouble(),
      startSmtpDouble(),
    ]);
    metaApi = await startHttpDouble({
      reply: (req, i) => {
        // Meta's media object: `GET /v21.0/{media-id}`.
        if (req.method === 'GET') {
          const object = metaLookups.get(req.path.split('?')[0]!.split('/').pop()!);
          return object
            ? { status: 200, body: { messaging_product: 'whatsapp', id: req.path.split('/').pop(), ...object } }
            : {
                status: 404,
                body: { error: { message: 'Unsupported get request.', type: 'GraphMethodException', code: 100 } },
              };
        }
        const body = JSON.parse(req.body || '{}');
        if (body.template?.name === 'wrong_vars')
          return {
            status: 400,
            body: {
              error: {
                message: '(#132000) Number of parameters does not match the expected number of params',
                type: 'OAuthException',
                code: 132000,
                fbtrace_id: 'AbCdEf',
              },
            },
          };
        return { status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.CONV${i}` }] } };
      },
    });
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), receiver?.close(), media?.close(), cdn?.close(), metaApi?.close(), smtp?.close()]);
  });
}
