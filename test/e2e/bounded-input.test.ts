import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRoutes } from '#functions/admin/routes.ts';
import { startTestService, type TestService } from '#test/support/service.ts';

/**
 * Hostile input the local service answers with the contract's codes: ids in paths over 200
 * characters, requests whose headers or body trickle in; and its data folder kept to its owner.
 */
let svc: TestService;
// A DATA_DIR that already exists, readable by everyone (as `mkdir` with a usual umask leaves it).
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bounded-'));
chmodSync(dataDir, 0o755);
let projectId: string;
let customToken: string;
let channelId: string;

beforeAll(async () => {
  svc = await startTestService({ dataDir, threads: false });
  ({ projectId } = await svc.newProject());
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    type: 'sms',
    name: 'SMS',
    address: '+15005550006',
  });
  channelId = channel.body.channelId;
  customToken = (await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'custom', channelId })).body
    .token;
});
afterAll(async () => {
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('DATA_DIR', () => {
  it('is 0700 after start although it already existed as 0755', () => {
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
  });
});

describe('ids in paths longer than 200 characters', () => {
  const long = (length: number) => `x${'a'.repeat(length - 1)}`;

  it('every management route answers 404 NOT_FOUND for each of its ids at 201 characters and at 2 KB', async () => {
    const tried: string[] = [];
    for (const route of adminRoutes) {
      const names = [...route.path.matchAll(/\{(\w+Id)\}/g)].map((m) => m[1]!);
      for (const name of names)
        for (const length of [201, 2048]) {
          const path = route.path.replace(/\{(\w+)\}/g, (_, param: string) =>
            param === name
              ? long(length)
              : param === 'projectId'
                ? projectId
                : param === 'fileName'
                  ? 'a.txt'
                  : `${param}_1`,
          );
          const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
          const answer = await svc.admin(route.method, path, body);
          tried.push(`${route.method} ${route.path} ${name}`);
          expect(answer.status, `${route.method} ${route.path} with a ${length}-character ${name}`).toBe(404);
          expect(answer.body.error).toBe('NOT_FOUND');
          expect(answer.body.requestId).toEqual(expect.any(String));
        }
    }
    expect(tried.length).toBeGreaterThan(60);
  });

  it('at 200 characters an id is still looked up (404 for an unknown project, not a refusal of its length)', async () => {
    const answer = await svc.admin('GET', `/projects/prj_${'a'.repeat(196)}`);
    expect(answer.status).toBe(404);
    expect(answer.body.error).toBe('NOT_FOUND');
  });

  it('a knowledge file name is a name, not an id: over its 255 characters it is 400 VALIDATION_ERROR, never a 500', async () => {
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'B', instructions: 'x' });
    for (const method of ['GET', 'DELETE', 'PUT'] as const) {
      const answer = await svc.admin(method, `/projects/${projectId}/bots/${bot.body.botId}/knowledge/${long(2048)}`);
      expect(answer.status, method).toBeLessThan(500);
      expect(answer.status, method).not.toBe(200);
    }
    const put = await svc.putKnowledge(projectId, bot.body.botId, `${long(2048)}.txt`, 'hello');
    expect(put.status).toBe(400);
    expect(put.body.error).toBe('VALIDATION_ERROR');
  });

  it('the public routes answer their own not-found codes', async () => {
    const id = long(2048);
    const message = await fetch(`${svc.baseUrl}/api/integration/messages/${id}`, {
      headers: { authorization: `Bearer ${customToken}` },
    });
    expect(message.status).toBe(404);
    expect(((await message.json()) as { error: string }).error).toBe('MESSAGE_NOT_FOUND');
    for (const [method, path] of [
      ['POST', `/inbound/twilio/${id}`],
      ['POST', `/inbound/whatsapp/${id}`],
      ['GET', `/inbound/whatsapp/${id}?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1`],
    ] as const) {
      const answer = await fetch(`${svc.baseUrl}${path}`, {
        method,
        ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' } : {}),
      });
      expect(answer.status, `${method} ${path.slice(0, 30)}`).toBe(404);
      expect(((await answer.json()) as { error: string }).error).toBe('CHANNEL_NOT_FOUND');
    }
  });
});

/**
 * A raw HTTP/1.1 client that writes `head` at once, then one byte of `drip` every `everyMs`; resolves with what the
 * server answered and when the connection closed (ms after it opened).
 */
function trickle(port: number, head: string, drip: string, everyMs: number) {
  return new Promise<{ answer: string; closedAfterMs: number }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const opened = Date.now();
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterMs: Date.now() - opened });
    });
    socket.once('connect', () => {
      socket.write(head);
      const next = () => {
        if (socket.destroyed || sent >= drip.length) return;
        socket.write(drip[sent++]!);
      };
      next();
      timer = setInterval(next, everyMs);
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept the connection open for 40 s'));
    }, 40_000).unref();
  });
}

describe('requests that trickle in (the local gateway)', () => {
  it('a body sent one byte every 20 s, or headers that never end, are cut with 408 REQUEST_TIMEOUT', async () => {
    const port = Number(new URL(svc.baseUrl).port);
    const [body, headers] = await Promise.all([
      trickle(
        port,
        `POST /admin/v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${svc.adminKey}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n',
        '{"companyId":1,"name":"slow"}',
        20_000,
      ),
      trickle(port, 'GET /api/v1/ai/health HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n', 20_000),
    ]);
    for (const [what, cut] of Object.entries({ body, headers })) {
      expect(cut.answer, what).toMatch(/^HTTP\/1\.1 408 /);
      expect(cut.answer, what).toMatch(/connection: close/i);
      expect(JSON.parse(cut.answer.slice(cut.answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        success: false,
        error: 'REQUEST_TIMEOUT',
        requestId: expect.any(String),
      });
      // Cut within the limit (15 s without a byte of body; 15 s for the headers, checked every second).
      expect(cut.closedAfterMs, what).toBeGreaterThan(14_000);
      expect(cut.closedAfterMs, what).toBeLessThan(18_000);
    }
  }, 45_000);

  it('a 25 MB upload sent steadily in small pieces is read whole (answered, not timed out)', async () => {
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Slow upload', instructions: 'x' });
    const size = 25 * 1024 * 1024 + 1;
    const port = Number(new URL(svc.baseUrl).port);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      socket.once('connect', async () => {
        socket.write(
          `PUT /admin/v1/projects/${projectId}/bots/${bot.body.botId}/knowledge/big.txt HTTP/1.1\r\n` +
            `Host: 127.0.0.1\r\nAuthorization: Bearer ${svc.adminKey}\r\nContent-Type: text/plain\r\n` +
            `Content-Length: ${size}\r\n\r\n`,
        );
        // 512 KB every 50 ms (~10 MB/s): steady, never idle, about 2.5 s for the whole body.
        const piece = Buffer.alloc(512 * 1024, 'a');
        for (let sent = 0; sent < size; sent += piece.length) {
          socket.write(piece.subarray(0, Math.min(piece.length, size - sent)));
          await new Promise((r) => setTimeout(r, 50));
        }
      });
    });
    expect(Date.now() - started).toBeGreaterThan(2_000);
    expect(answer).not.toMatch(/^HTTP\/1\.1 408 /);
    // The file is over 25 MB: the route read it all and refused it for its size.
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  }, 30_000);
});
