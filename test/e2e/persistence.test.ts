import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService, stopProcess } from '#test/support/process.ts';

const parentDir = mkdtempSync(join(tmpdir(), 'switchboard-persist-'));
// Not created beforehand: the runner makes it, and must make it private.
const dataDir = join(parentDir, 'data');
// V8's compile cache of these starts, their own: what the first start wrote is seen without another process's.
const compileCache = join(parentDir, 'compile-cache');
const cachedFiles = () => readdirSync(compileCache, { recursive: true }).length;
afterAll(() => rmSync(parentDir, { recursive: true, force: true }));

async function adminCall(baseUrl: string, adminKey: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('npm start keeps its data under DATA_DIR', () => {
  it('keeps projects, tokens, balances and its compiled code across a clean stop and a kill -9', async () => {
    const first = await spawnService({ DATA_DIR: dataDir, NODE_COMPILE_CACHE: compileCache });
    // The code a start compiled is cached once it is ready, not at its exit: a killed service's next start uses it.
    const cachedAtReady = cachedFiles();
    expect(((await (await fetch(`${first.baseUrl}/healthz`)).json()) as any).ok).toBe(true);
    // Message bodies, numbers, URLs and the keys live here: nobody but the owner may read them.
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const secret of ['admin-key', 'secrets-key']) expect(statSync(join(dataDir, secret)).mode & 0o777).toBe(0o600);
    const project = await adminCall(first.baseUrl, first.adminKey, 'POST', '/projects', {
      companyId: 77,
      name: 'Durable',
      monthlyBotCredits: 10,
    });
    const token = (
      await adminCall(first.baseUrl, first.adminKey, 'POST', `/projects/${project.body.projectId}/api-token`)
    ).body.token;
    await adminCall(first.baseUrl, first.adminKey, 'POST', `/projects/${project.body.projectId}/bot-credits`, {
      amount: 3,
    });
    expect(await stopProcess(first.child, 'SIGTERM')).toBe(0);
    expect(cachedAtReady).toBeGreaterThan(500);

    const second = await spawnService({ DATA_DIR: dataDir, NODE_COMPILE_CACHE: compileCache });
    expect(second.adminKey).toBe(first.adminKey);
    const health = await fetch(`${second.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(health.status).toBe(200);
    expect(((await health.json()) as any).creditos.disponivel).toBe(13);
    await adminCall(second.baseUrl, second.adminKey, 'POST', `/projects/${project.body.projectId}/bot-credits`, {
      amount: 2,
    });
    await stopProcess(second.child, 'SIGKILL');

    const third = await spawnService({ DATA_DIR: dataDir, NODE_COMPILE_CACHE: compileCache });
    const again = await fetch(`${third.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await again.json()) as any).creditos.disponivel).toBe(15);
    expect(
      (await adminCall(third.baseUrl, third.adminKey, 'GET', `/projects/${project.body.projectId}`)).body.name,
    ).toBe('Durable');
    await stopProcess(third.child, 'SIGTERM');
  }, 90_000);
});
