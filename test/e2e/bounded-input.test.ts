import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRoutes } from '#shared/openapi/admin-routes.ts';
import { startTestService, type TestService } from '#test/support/service.ts';

/**
 * Hostile input the local service answers with the contract's codes (contract §15): ids in paths over 200
 * characters; and its data folder kept to its owner.
 */
let svc: TestService;
// A DATA_DIR that already exists, readable by everyone (as `mkdir` with a usual umask leaves it).
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bounded-'));
chmodSync(dataDir, 0o755);
let projectId: string;
let customToken: string;
let channelId: string;

beforeAll(async () => {
  svc = await startTestService({ dataDir });
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
