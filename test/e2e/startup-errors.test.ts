import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServiceToExit, spawnService, stopProcess, type ServiceProcess } from '#test/support/process.ts';

// `npm start` refused for a setting the user can fix: one line on stderr naming the setting, no stack, exit 1.
const parentDir = mkdtempSync(join(tmpdir(), 'switchboard-startup-'));
let running: ServiceProcess;
let smtpPort: number;

beforeAll(async () => {
  running = await spawnService({ DATA_DIR: join(parentDir, 'running') });
  smtpPort = Number(/smtp:\/\/127\.0\.0\.1:(\d+)/.exec(running.output())![1]);
}, 90_000);
afterAll(async () => {
  if (running) await stopProcess(running.child, 'SIGTERM');
  rmSync(parentDir, { recursive: true, force: true });
});

/** The refusal printed by `local/main.ts`: the one line, checked for a stack trace anywhere in the output. */
function refusal(result: { code: number | null; stdout: string; stderr: string }): string {
  expect(result.code).toBe(1);
  expect(result.stdout).not.toContain('Switchboard is running');
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s+at /m);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Switchboard could not start\. /);
  return lines[0]!;
}

describe('start-up errors name the setting to change', () => {
  it('a second instance on the same PORT', async () => {
    const port = new URL(running.baseUrl).port;
    const line = refusal(
      await runServiceToExit({ PORT: port, SMTP_INBOUND_PORT: '0', DATA_DIR: join(parentDir, 'second-http') }),
    );
    expect(line).toContain(`PORT: port ${port} on 127.0.0.1 is already in use`);
    expect(line).toContain(`PORT=${Number(port) + 1} npm start`);
    expect(startedNothing('second-http')).toBe(true);
  }, 60_000);

  it('a second instance on the same SMTP_INBOUND_PORT', async () => {
    const line = refusal(
      await runServiceToExit({
        PORT: '0',
        SMTP_INBOUND_PORT: String(smtpPort),
        DATA_DIR: join(parentDir, 'second-smtp'),
      }),
    );
    expect(line).toContain(`SMTP_INBOUND_PORT: port ${smtpPort} on 127.0.0.1 is already in use`);
    expect(startedNothing('second-smtp')).toBe(true);
  }, 60_000);

  it('a second instance on the same port of an AWS stand-in (LOCAL_KINESIS_PORT)', async () => {
    const info = (await (await fetch(`${running.baseUrl}/local/aws`)).json()) as { endpoints: { kinesis: string } };
    const port = new URL(info.endpoints.kinesis).port;
    const line = refusal(
      await runServiceToExit({
        PORT: '0',
        SMTP_INBOUND_PORT: '0',
        LOCAL_KINESIS_PORT: port,
        DATA_DIR: join(parentDir, 'second-kinesis'),
      }),
    );
    expect(line).toContain(`LOCAL_KINESIS_PORT: port ${port} on 127.0.0.1 is already in use`);
    expect(startedNothing('second-kinesis')).toBe(true);
  }, 60_000);

  it('a second instance on the same DATA_DIR, while the first one keeps running', async () => {
    const line = refusal(
      await runServiceToExit({ PORT: '0', SMTP_INBOUND_PORT: '0', DATA_DIR: join(parentDir, 'running') }),
    );
    expect(line).toContain(
      `DATA_DIR: ${join(parentDir, 'running')} is in use by another Switchboard (pid ${running.child.pid})`,
    );
    expect((await fetch(`${running.baseUrl}/healthz`)).status).toBe(200);
  }, 60_000);

  it('a DATA_DIR that is a file', async () => {
    const file = join(parentDir, 'a-file');
    writeFileSync(file, 'not a folder');
    const line = refusal(await runServiceToExit({ PORT: '0', SMTP_INBOUND_PORT: '0', DATA_DIR: file }));
    expect(line).toContain(`DATA_DIR: ${file} is a file, not a folder`);
  }, 60_000);

  it('a DATA_DIR this user cannot write', async () => {
    // Root writes anywhere on a normal file system; /sys refuses even root.
    const unwritable = process.getuid?.() === 0 ? '/sys/switchboard-test' : join(lockedParent(), 'data');
    const line = refusal(await runServiceToExit({ PORT: '0', SMTP_INBOUND_PORT: '0', DATA_DIR: unwritable }));
    expect(line).toMatch(
      new RegExp(`DATA_DIR: ${unwritable} is not writable by this user|is on a read-only file system`),
    );
  }, 60_000);

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['SMTP_INBOUND_PORT', '25x'],
    ['LOCAL_SES_PORT', 'ses'],
  ])(
    '%s=%s is not a port number',
    async (setting, value) => {
      const line = refusal(
        await runServiceToExit({
          PORT: '0',
          SMTP_INBOUND_PORT: '0',
          DATA_DIR: join(parentDir, 'bad-port'),
          [setting]: value,
        }),
      );
      expect(line).toContain(`${setting}: "${value}" is not a port number`);
    },
    60_000,
  );

  it('a setting the functions refuse (ADMIN_KEY too short)', async () => {
    const line = refusal(
      await runServiceToExit({
        PORT: '0',
        SMTP_INBOUND_PORT: '0',
        DATA_DIR: join(parentDir, 'bad-settings'),
        ADMIN_KEY: 'short',
      }),
    );
    expect(line).toContain('A setting is not valid: ADMIN_KEY: ');
    expect(startedNothing('bad-settings')).toBe(true);
  }, 60_000);

  it('a setting the webhooks area declares (a malformed retry schedule), refused before anything starts', async () => {
    const line = refusal(
      await runServiceToExit({
        PORT: '0',
        SMTP_INBOUND_PORT: '0',
        DATA_DIR: join(parentDir, 'bad-retry-schedule'),
        WEBHOOK_RETRY_SCHEDULE: 'soon',
      }),
    );
    expect(line).toContain('A setting is not valid: WEBHOOK_RETRY_SCHEDULE: ');
    expect(startedNothing('bad-retry-schedule')).toBe(true);
  }, 60_000);

  it("a setting an area declares (the pdf area's OCR_DPI), refused before anything starts", async () => {
    const line = refusal(
      await runServiceToExit({
        PORT: '0',
        SMTP_INBOUND_PORT: '0',
        DATA_DIR: join(parentDir, 'bad-area-setting'),
        OCR_DPI: '7',
      }),
    );
    expect(line).toContain('A setting is not valid: OCR_DPI: ');
    expect(startedNothing('bad-area-setting')).toBe(true);
  }, 60_000);

  it('prints the console and the API reference URLs at start', () => {
    expect(running.output()).toContain(`Console:   ${running.baseUrl}/console`);
    expect(running.output()).toContain(`API docs:  ${running.baseUrl}/docs`);
  });
});

/**
 * A bad setting or a port in use is refused before anything starts (the settings are checked and the fixed ports
 * bound for a moment first, not when the functions load or the listeners bind once the stand-ins and threads are
 * up): nothing was written in the data folder (no keys, no stand-in's files).
 */
function startedNothing(dataDir: string): boolean {
  return readdirSync(join(parentDir, dataDir)).length === 0;
}

/** A folder whose owner may not create anything in it (mode 0500). */
function lockedParent(): string {
  const dir = join(parentDir, 'locked');
  mkdirSync(dir, { mode: 0o500 });
  return dir;
}
