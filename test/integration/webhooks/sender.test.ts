import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup } from '#shared/kernel/adapters/guarded-lookup.ts';
import { HttpWebhookSender } from '#shared/webhooks/adapters/http-webhook-sender.ts';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let port: number;
const received: Received[] = [];
const hanging = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/hang') return void hanging.add(res);
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/gone') return void res.writeHead(410).end('gone');
      if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(1_000_000));
      res.writeHead(200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const request = (url: string) => ({ url, headers: { 'content-type': 'application/json' }, body: '{"a":1}' });

describe('HttpWebhookSender with private destinations refused (AWS)', () => {
  const sender = new HttpWebhookSender({ timeoutMs: 2_000, allowPrivate: false });
  afterAll(() => sender.close());

  it.each([
    ['loopback literal', (p: number) => `http://127.0.0.1:${p}/x`],
    ['decimal literal', (p: number) => `http://2130706433:${p}/x`],
    ['octal literal', (p: number) => `http://0177.0.0.1:${p}/x`],
    ['hex literal', (p: number) => `http://0x7f.1:${p}/x`],
    ['IPv4-mapped IPv6 literal', (p: number) => `http://[::ffff:127.0.0.1]:${p}/x`],
    ['IPv6 loopback', (p: number) => `http://[::1]:${p}/x`],
    ['name resolving to loopback', (p: number) => `http://localhost:${p}/x`],
    ['metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['private address', () => 'http://10.0.0.1/'],
    ['CGNAT address', () => 'http://100.64.1.1/'],
  ])('refuses a %s without sending anything', async (_label, url) => {
    const before = received.length;
    const outcome = await sender.send(request(url(port)));
    expect(outcome.kind).toBe('forbidden');
    expect(received.length).toBe(before);
  });

  it('checks the address it connects to, so DNS rebinding does not pass', async () => {
    // The name answers a public address to whoever checks first, then 127.0.0.1 (a rebinding attacker's DNS).
    let calls = 0;
    const rebinding = (
      _name: string,
      cb: (e: NodeJS.ErrnoException | null, a: { address: string; family: number }[]) => void,
    ) => cb(null, [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }]);
    const lookup = guardedLookup({ allowPrivate: false, resolve: rebinding });
    // A validator resolving the name first would have seen a public address...
    await new Promise<void>((resolve) =>
      lookup('rebind.example', { all: true }, (error: unknown, addresses: unknown) => {
        expect(error).toBeNull();
        expect(addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
        resolve();
      }),
    );
    // ...but the connection resolves again, and that answer is refused.
    const guarded = new HttpWebhookSender({ timeoutMs: 2_000, allowPrivate: false, lookup });
    const before = received.length;
    const outcome = await guarded.send(request(`http://rebind.example:${port}/x`));
    guarded.close();
    expect(outcome).toMatchObject({ kind: 'forbidden' });
    expect(received.length).toBe(before);
  });

  it('drops forbidden addresses from a mixed answer and connects to the allowed one only', async () => {
    const seen: string[] = [];
    const mixed = guardedLookup({
      allowPrivate: false,
      resolve: (_n, cb) =>
        cb(null, [
          { address: '127.0.0.1', family: 4 },
          { address: '8.8.8.8', family: 4 },
        ]),
    });
    await new Promise<void>((resolve) =>
      mixed('mixed.example', { all: true }, (_e: unknown, addresses: unknown) => {
        seen.push(...(addresses as { address: string }[]).map((a) => a.address));
        resolve();
      }),
    );
    expect(seen).toEqual(['8.8.8.8']);
  });
});

describe('HttpWebhookSender with private destinations allowed (local runs)', () => {
  const sender = new HttpWebhookSender({ timeoutMs: 500, allowPrivate: true });
  afterAll(() => sender.close());

  it('POSTs the body and headers and reports a 2xx as success', async () => {
    const outcome = await sender.send({
      url: `http://127.0.0.1:${port}/ok`,
      headers: { 'content-type': 'application/json', 'x-test': '1' },
      body: '{"hello":"world"}',
    });
    expect(outcome).toMatchObject({ kind: 'success', statusCode: 200 });
    const last = received.at(-1)!;
    expect(last).toMatchObject({ path: '/ok', body: '{"hello":"world"}' });
    expect(last.headers['x-test']).toBe('1');
  });

  it('does not follow redirects', async () => {
    const before = received.length;
    const outcome = await sender.send(request(`http://127.0.0.1:${port}/redirect`));
    expect(outcome).toMatchObject({ kind: 'http-error', statusCode: 302 });
    expect(received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
  });

  it('reports 410 with its status', async () => {
    expect(await sender.send(request(`http://127.0.0.1:${port}/gone`))).toMatchObject({
      kind: 'http-error',
      statusCode: 410,
    });
  });

  it('gives up on a receiver that never answers at the deadline', async () => {
    const started = Date.now();
    const outcome = await sender.send(request(`http://127.0.0.1:${port}/hang`));
    expect(outcome.kind).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('stops reading a huge answer and still succeeds', async () => {
    expect(await sender.send(request(`http://127.0.0.1:${port}/big`))).toMatchObject({
      kind: 'success',
      statusCode: 200,
    });
  });

  it('reports a refused connection as a network failure', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await sender.send(request(`http://127.0.0.1:${closedPort}/`))).toMatchObject({
      kind: 'network',
      error: 'connection refused',
    });
  });
});
