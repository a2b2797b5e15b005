import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '#infra/bundling.ts';
import { runCommand, startChild } from '#test/support/process.ts';
import { freeLocalPort } from '#test/support/listen.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * The programs in examples/ against the running service, as their README says to run them: the curl walk-through, the
 * TypeScript quickstart, and the webhook receiver as a project of its own outside this repository, with the SDK
 * packed by `npm pack` and installed from the tarball.
 */
let svc: ServiceClient;
let receiver: TestReceiver;
const outside = mkdtempSync(join(tmpdir(), 'switchboard-outside-'));
beforeAll(async () => {
  svc = await sharedService();
  receiver = await startReceiver(() => 204);
});
afterAll(async () => {
  await receiver?.close();
  await svc?.close();
  rmSync(outside, { recursive: true, force: true });
});

/** How the examples find the service: its URL and the data folder holding its admin key. */
const serviceEnv = () => ({ SWITCHBOARD_URL: svc.baseUrl, DATA_DIR: svc.dataDir, ADMIN_KEY: undefined });

describe('examples/', () => {
  it('walkthrough.sh: every product with curl, each step answered as it says', async () => {
    const run = await runCommand('bash', ['examples/walkthrough.sh'], {
      cwd: projectRoot,
      env: { ...serviceEnv(), RECEIVER_URL: receiver.url },
      timeoutMs: 120_000,
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/"status":"sent"/);
    expect(run.output).toMatch(/"eventType":"webhook\.test","status":"(succeeded|pending)","attempts":\[\{/);
    expect(run.output).toContain('"status":"ready"');
    expect(run.output).toContain('"procedencia":"refunds.md"');
    expect(run.output).toContain('Invoice 42: total R$ 100,00');
    expect(run.output).toContain('data: [DONE]');
    expect(run.output).toMatch(/"creditos":\{"disponivel":97,/);
    expect(receiver.received.map((d) => d.json?.type)).toContain('webhook.test');
  }, 150_000);

  it('walkthrough.sh: without an admin key, says where it looked, and stops', async () => {
    const run = await runCommand('bash', ['examples/walkthrough.sh'], {
      cwd: projectRoot,
      env: { SWITCHBOARD_URL: svc.baseUrl, DATA_DIR: join(outside, 'nowhere'), ADMIN_KEY: undefined },
    });
    expect(run.code).toBe(1);
    expect(run.output).toContain(`${join(outside, 'nowhere')}/admin-key is missing`);
  }, 30_000);

  it('quickstart.ts: the same with the TypeScript client, the knowledge file waited for until ready', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts'], {
      cwd: projectRoot,
      env: serviceEnv(),
      timeoutMs: 120_000,
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/^sent msg_\w+ sent$/m);
    expect(run.output).toMatch(/^outbox msg_\w+ \+5511988887777$/m);
    expect(run.output).toMatch(/^search refunds\.md Refunds/m);
    expect(run.output).toMatch(/^completion [\s\S]*Refunds take five business days[\s\S]*procedencia: 'refunds.md'/m);
    expect(run.output).toMatch(/^extract Invoice 42: total R\$ 100,00/m);
    expect(run.output).toMatch(/^credits left 98 in \d\d\/\d{4}$/m);
  }, 150_000);

  it('webhook-receiver/: runs outside the repository with the packed SDK, and checks signatures', async () => {
    // As its README says: the SDK packed, the folder copied elsewhere, the tarball installed there.
    const pack = await runCommand('npm', ['pack', '--pack-destination', outside], { cwd: join(projectRoot, 'sdk') });
    expect(pack.code, pack.output).toBe(0);
    const tarball = readdirSync(outside).find((f) => f.endsWith('.tgz'))!;
    const app = join(outside, 'my-receiver');
    cpSync(join(projectRoot, 'examples/webhook-receiver'), app, { recursive: true });
    expect(relative(projectRoot, app).startsWith('..')).toBe(true);
    const install = await runCommand(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', join(outside, tarball)],
      { cwd: app, timeoutMs: 240_000 },
    );
    expect(install.code, install.output).toBe(0);

    const { projectId } = await svc.newProject();
    const port = await freeLocalPort();
    const created = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: `http://127.0.0.1:${port}/webhooks`,
      bearerToken: 'my-receiver-token',
    });
    const running = startChild('npm', ['start'], {
      cwd: app,
      env: { SIGNING_SECRET: created.body.signingSecret, RECEIVER_PORT: String(port) },
    });
    try {
      await running.waitForOutput(/listening on/, 60_000);
      const { eventId } = (
        await svc.admin('POST', `/projects/${projectId}/integrations/${created.body.integrationId}/test`)
      ).body;
      await running.waitForOutput(new RegExp(`^webhook\\.test ${eventId} `, 'm'), 30_000);
      // A request that is not signed by the service is refused, and never printed as an event.
      const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer my-receiver-token',
          'webhook-id': 'evt_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: '{"type":"webhook.test"}',
      });
      expect(forged.status).toBe(400);
      expect(running.output()).not.toContain('evt_forged');
    } finally {
      await running.stop();
    }
  }, 360_000);
});
