import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  claimDataDir,
  DATA_DIR_LOCK,
  listenFailure,
  portSetting,
  probePorts,
  StartupError,
} from '#local/startup-errors.ts';

const parent = mkdtempSync(join(tmpdir(), 'switchboard-claim-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('the data folder is held by one service', () => {
  it('is taken over from a process that died without releasing it (kill -9)', async () => {
    const dir = join(parent, 'stale');
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid!;
    await new Promise((resolve) => child.once('exit', resolve));
    claimDataDir(dir).release();
    writeFileSync(join(dir, DATA_DIR_LOCK), `${pid}\n`);
    const claim = claimDataDir(dir);
    expect(readFileSync(join(dir, DATA_DIR_LOCK), 'utf8').trim()).toBe(String(process.pid));
    claim.release();
    expect(existsSync(join(dir, DATA_DIR_LOCK))).toBe(false);
  });

  it('is refused while another Node process holds it, naming its pid', async () => {
    const dir = join(parent, 'held');
    claimDataDir(dir).release();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      writeFileSync(join(dir, DATA_DIR_LOCK), `${child.pid}\n`);
      expect(() => claimDataDir(dir)).toThrow(
        new StartupError('DATA_DIR', `${dir} is in use by another Switchboard (pid ${child.pid}).`).message.slice(
          0,
          -1,
        ),
      );
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('is refused to a second service of this process until the first releases it', () => {
    const dir = join(parent, 'same-process');
    const first = claimDataDir(dir);
    expect(() => claimDataDir(dir)).toThrow(/in use by another service in this process/);
    first.release();
    claimDataDir(dir).release();
  });
});

describe('port settings', () => {
  it('takes whole numbers from 0 to 65535 and the default when unset', () => {
    expect(portSetting('PORT', undefined, 3000)).toBe(3000);
    expect(portSetting('PORT', '', 3000)).toBe(3000);
    expect(portSetting('PORT', '0', 3000)).toBe(0);
    expect(portSetting('PORT', '65535', 3000)).toBe(65535);
    for (const bad of ['-1', '65536', '3000.5', '0x10', 'abc'])
      expect(() => portSetting('SMTP_INBOUND_PORT', bad, 2525)).toThrow(`SMTP_INBOUND_PORT: "${bad}" is not a port`);
  });

  it('names the setting of a port in use, and leaves other failures alone', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect(String((listenFailure('SMTP_INBOUND_PORT', 2525, inUse) as Error).message)).toMatch(
      /^SMTP_INBOUND_PORT: port 2525 on 127\.0\.0\.1 is already in use/,
    );
    const other = new Error('something else');
    expect(listenFailure('PORT', 3000, other)).toBe(other);
  });

  it('refuses a fixed port in use before anything starts, and lets go of the free ones it tried', async () => {
    const listening = async () => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      return { server, port: (server.address() as AddressInfo).port };
    };
    const taken = await listening();
    const free = await listening();
    await new Promise<void>((resolve) => free.server.close(() => resolve()));
    try {
      const refused = await probePorts({ PORT: free.port, LOCAL_KINESIS_PORT: 0, SMTP_INBOUND_PORT: taken.port }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StartupError);
      expect((refused as Error).message).toMatch(
        new RegExp(`^SMTP_INBOUND_PORT: port ${taken.port} on 127\\.0\\.0\\.1 is already in use`),
      );
      // The free one was tried and let go: it binds again.
      await probePorts({ PORT: free.port });
      const again = createServer();
      await new Promise<void>((resolve, reject) => {
        again.once('error', reject);
        again.listen(free.port, '127.0.0.1', () => resolve());
      });
      await new Promise<void>((resolve) => again.close(() => resolve()));
    } finally {
      await new Promise<void>((resolve) => taken.server.close(() => resolve()));
    }
  });
});
