import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { crc32 } from 'node:zlib';
import { metaEnvelope, sendMetaWebhook } from '#test/support/meta-webhook.ts';
import { stopProcess } from '#test/support/process.ts';
import { baselineAndThis, here, spawnIn } from './lib/compared-services.ts';
import { adminApi, load, machine, median, processCpuMs } from './lib/harness.ts';
import { sendTargets } from './lib/send-targets.ts';

const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'both' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    images: { type: 'string', default: '20' },
    baseline: { type: 'string', default: 'integration' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-conversations-'));

const cpuMs = processCpuMs;

// ---------------------------------------------------------------------------------------------------------------

async function sendPart() {
  // The baseline: the tree of `--baseline`, with this tree's dependencies (the same lockfile).
  const services = await baselineAndThis(scratch, values.baseline!);

  // On each: an sms and a whatsapp channel (sandbox provider, metered: the full send), each with a custom token; the
  // whatsapp contact writes first, so its window is open and the send passes every check.
  const targets = await Promise.all(services.map(async (svc) => ({ svc, ...(await sendTargets(svc)) })));

  type Row = { p50: number; p99: number; rps: number; cpu: number; errors: number };
  const results = new Map<string, Row[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...targets].reverse() : targets;
    for (const t of order) {
      for (const kind of ['sms', 'whatsapp'] as const) {
        // Each channel type's payload: sms `to` / `body` / `metadata`, whatsapp `number` / `message`.
        const payload =
          kind === 'sms'
            ? { to: '+5511988887777', body: 'Your code is 123456', metadata: { orderId: 42 } }
            : { number: '5511988887777', message: 'Your code is 123456' };
        const probe = await fetch(`${t.svc.baseUrl}/api/integration/generic`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t[kind].token}`, 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        });
        if (probe.status >= 300) throw new Error(`${t.svc.name} ${kind}: ${probe.status} ${await probe.text()}`);
        const cpu0 = cpuMs(t.svc.child.pid!);
        const r = await load({
          url: `${t.svc.baseUrl}/api/integration/generic`,
          method: 'POST',
          headers: { authorization: `Bearer ${t[kind].token}`, 'content-type': 'application/json' },
          body: JSON.stringify(payload),
          connections: 1,
          seconds,
          warmupSeconds: 1,
        });
        // The events each send emits are fanned out after the load ends: let them settle inside the window counted.
        await new Promise((r) => setTimeout(r, 1000));
        const cpu = (cpuMs(t.svc.child.pid!) - cpu0) / r.allRequests;
        const key = `${t.svc.name} ${kind}`;
        results.set(key, [...(results.get(key) ?? []), { p50: r.p50, p99: r.p99, rps: r.rps, cpu, errors: r.errors }]);
        console.error(
          `round ${round + 1} ${key}: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${r.rps.toFixed(0)} req/s, CPU ${cpu.toFixed(2)} ms/req, errors ${r.errors}, statuses ${JSON.stringify(r.statuses)}`,
        );
      }
    }
  }
  console.log(
    `\n### send: ${rounds} rounds of ${seconds} s, 1 connection (${machine()}, load ${loadavg()[0]!.toFixed(1)})`,
  );
  console.log('| service | channel | p50 ms | p99 ms | req/s | CPU ms/request | errors |');
  console.log('|---|---|---|---|---|---|---|');
  const med = (rows: Row[], f: (r: Row) => number) => median(rows.map(f));
  for (const [key, rows] of results) {
    const [name, kind] = [key.slice(0, key.lastIndexOf(' ')), key.slice(key.lastIndexOf(' ') + 1)];
    console.log(
      `| ${name} | ${kind} | ${med(rows, (r) => r.p50).toFixed(2)} | ${med(rows, (r) => r.p99).toFixed(2)} | ${med(rows, (r) => r.rps).toFixed(0)} | ${med(rows, (r) => r.cpu).toFixed(2)} | ${rows.reduce((s, r) => s + r.errors, 0)} |`,
    );
  }
  for (const kind of ['sms', 'whatsapp']) {
    const base = results.get(`${services[0]!.name} ${kind}`)!;
    const mine = results.get(`${services[1]!.name} ${kind}`)!;
    // Per round ratios (the two ran minutes apart at most), then their median.
    const ratio = (f: (r: Row) => number) => median(mine.map((r, i) => f(r) / f(base[i]!))).toFixed(3);
    console.log(
      `${kind}: this / baseline, median of per-round ratios: p50 ${ratio((r) => r.p50)}, CPU/request ${ratio((r) => r.cpu)}`,
    );
  }
  for (const svc of services) await stopProcess(svc.child, 'SIGTERM');
}

// ---------------------------------------------------------------------------------------------------------------

const APP_SECRET = 'bench-app-secret';
const ACCESS_TOKEN = 'bench-access-token';

/** A PNG-shaped image of about `size` bytes: signature, IHDR, a private chunk of random bytes (incompressible), IEND. */
function png(size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  const idat = Buffer.from('789c626000000000ffff03000001000100', 'hex');
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('raNd', randomBytes(Math.max(0, size - 80))),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The customer's webhook receiver for the media part: the time each received message's first event arrived (by its
 * provider message id) and its media, and a wait for one.
 */
async function startEventReceiver() {
  const received = new Map<string, { at: number; media: any[] }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (event.type === 'message.received' && !received.has(event.data.providerMessageId))
        received.set(event.data.providerMessageId, { at, media: event.data.media ?? [] });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async waitFor(wamid: string, timeoutMs = 60_000) {
      const end = performance.now() + timeoutMs;
      while (!received.has(wamid)) {
        if (performance.now() > end) throw new Error(`no event for ${wamid}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return received.get(wamid)!;
    },
  };
}

async function mediaPart() {
  const count = Number(values.images);
  const images = new Map<string, Buffer>();
  // Meta's Graph API and its media host, one double: `GET /v21.0/{media-id}` → the media object; `GET /media/{id}`
  // → the bytes, with the access token.
  const meta = createServer((req, res) => {
    const id = req.url!.split('?')[0]!.split('/').pop()!;
    const image = images.get(id);
    if (req.headers.authorization !== `Bearer ${ACCESS_TOKEN}` || !image) return void res.writeHead(404).end('{}');
    if (req.url!.startsWith('/media/')) return void res.writeHead(200, { 'content-type': 'image/png' }).end(image);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        messaging_product: 'whatsapp',
        id,
        url: `${metaUrl}/media/${id}`,
        mime_type: 'image/png',
        sha256: sha256(image),
        file_size: image.length,
      }),
    );
  });
  meta.listen(0, '127.0.0.1');
  await new Promise((r) => meta.once('listening', r));
  const metaUrl = `http://127.0.0.1:${(meta.address() as AddressInfo).port}`;

  const receiver = await startEventReceiver();

  const svc = await spawnIn(scratch, 'media', here);
  const admin = adminApi(svc);
  const { projectId } = await admin('POST', '/projects', { companyId: 1042, name: 'bench media' });
  await admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    url: receiver.url,
    eventTypes: ['message.received'],
  });
  const phoneNumberId = '3000000000001';
  const channel = await admin('POST', `/projects/${projectId}/channels`, {
    type: 'whatsapp',
    name: 'bench media',
    address: '+15551230000',
    provider: {
      kind: 'whatsapp-cloud',
      phoneNumberId,
      accessToken: ACCESS_TOKEN,
      appSecret: APP_SECRET,
      baseUrl: metaUrl,
    },
  });

  /** One image message, as Meta posts it; resolves with when the 200 came. */
  async function post(i: number, prefix: string) {
    const image = png(5 * 1024 * 1024);
    const mediaId = `${prefix}${i}`;
    images.set(mediaId, image);
    const wamid = `wamid.BENCH${prefix}${i}`;
    const message = {
      from: '5511988880005',
      id: wamid,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: 'image',
      image: { caption: `foto ${i}`, mime_type: 'image/png', sha256: sha256(image), id: mediaId },
    };
    const number = { phoneNumberId, displayNumber: '15551230000', accountId: '102290129340398' };
    const raw = Buffer.from(JSON.stringify(metaEnvelope({ messages: [message] }, number)));
    const res = await sendMetaWebhook(svc.baseUrl, channel.channelId, APP_SECRET, raw);
    if (res.status !== 200) throw new Error(`inbound answered ${res.status}: ${await res.text()}`);
    return { wamid, accepted: performance.now(), image };
  }

  // Warm-up: two images (cold imports of the worker's paths).
  for (let i = 0; i < 2; i++) await receiver.waitFor((await post(i, 'warm')).wamid);

  // One image at a time (closed loop): the latency of one, not a queue's.
  const latencies: number[] = [];
  const withDownload: number[] = [];
  let working = 0;
  for (let i = 0; i < count; i++) {
    const { wamid, accepted, image } = await post(i, 'img');
    const event = await receiver.waitFor(wamid);
    latencies.push(event.at - accepted);
    const item = event.media[0];
    if (item?.url) {
      const bytes = Buffer.from(await (await fetch(item.url)).arrayBuffer());
      if (bytes.equals(image) && item.sha256 === sha256(image) && item.size === image.length) working++;
    }
    withDownload.push(performance.now() - accepted);
    images.delete(`img${i}`);
  }
  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
  };
  console.log(
    `\n### media: ${count} WhatsApp images of 5 MB, one at a time (${machine()}, load ${loadavg()[0]!.toFixed(1)})`,
  );
  console.log(
    `accepted → message.received: p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
  );
  console.log(
    `accepted → event + the image downloaded from its URL: p50 ${pct(withDownload, 50).toFixed(0)} ms, p99 ${pct(withDownload, 99).toFixed(0)} ms`,
  );
  console.log(`events whose URL gave the same bytes (sha256 and size as sent): ${working} / ${count}`);
  await stopProcess(svc.child, 'SIGTERM');
  meta.close();
  receiver.server.close();
}

try {
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (values.part === 'send' || values.part === 'both') await sendPart();
  if (values.part === 'media' || values.part === 'both') await mediaPart();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
