import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * A start-up failure a user fixes with a setting: its message names the setting, its value and what to do, in one
 * line. `npm start` prints it without a stack trace and exits non-zero; any other failure keeps its stack.
 */
export class StartupError extends Error {
  constructor(
    readonly setting: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${setting}: ${message}`, options);
    this.name = 'StartupError';
  }
}

/** A port setting (`PORT`, `SMTP_INBOUND_PORT`) read from the environment: a whole number from 0 (any free) to 65535. */
export function portSetting(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65_535)
    throw new StartupError(name, `"${value}" is not a port number (a whole number from 0 to 65535; 0 = any free port)`);
  return port;
}

/**
 * What a failed `listen` on `port` means for the user, as a {@link StartupError} naming `setting`; other failures are
 * returned unchanged. The local runner binds 127.0.0.1 only, so "in use" is another program on this machine.
 */
export function listenFailure(setting: string, port: number, error: unknown): unknown {
  const code = errorCode(error);
  if (code === 'EADDRINUSE')
    return new StartupError(
      setting,
      `port ${port} on 127.0.0.1 is already in use (another Switchboard, or another program). Stop it, or start ` +
        `with another port: ${setting}=${port + 1} npm start (0 picks any free port)`,
      { cause: error },
    );
  if (code === 'EACCES')
    return new StartupError(
      setting,
      `port ${port} needs privileges this user does not have; use a port above 1023 (${setting}=${port < 1024 ? 3000 + port : port + 1})`,
      { cause: error },
    );
  return error;
}

/**
 * Binds each fixed port (by setting name; 0, any free port, is left out) on 127.0.0.1 for a moment and lets it go,
 * so that a port in use is refused before anything starts: a start refused by its own bind has first started the
 * stand-ins and the threads (seconds of CPU for one line). A port taken between this and the start is refused by
 * the start the same way.
 */
export async function probePorts(ports: Readonly<Record<string, number>>): Promise<void> {
  for (const [setting, port] of Object.entries(ports)) {
    if (!port) continue;
    const server = createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
    } catch (error) {
      throw listenFailure(setting, port, error);
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The file that marks a data folder as held by a running service (the pid of its process). */
export const DATA_DIR_LOCK = 'service.pid';

/** Folders this process holds: a restart in the same process reclaims its own. */
const heldHere = new Set<string>();

/**
 * Makes `dataDir` ready for one service: created if missing, owner-only (it holds message bodies, phone numbers,
 * webhook URLs and the local keys; a folder that was already there is tightened too), writable, and held by this
 * process until `release()`. Two services on one folder would corrupt each other's stores (LevelDB and SQLite lock
 * their files and fail later, deep in a stand-in), so the second one is refused here with the holder's pid.
 */
export function claimDataDir(dataDir: string): { release(): void } {
  const refuse = (what: string, cause?: unknown) =>
    new StartupError('DATA_DIR', `${dataDir} ${what}`, cause === undefined ? undefined : { cause });
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory())
    throw refuse('is a file, not a folder; point DATA_DIR at a folder (it is created if missing)');
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw refuse(
      `${describeFsError(error, 'cannot be created or written')}; choose a folder this user can write`,
      error,
    );
  }
  const lock = join(dataDir, DATA_DIR_LOCK);
  const holder = lockHolder(lock);
  if (holder !== undefined && holder !== process.pid)
    throw refuse(
      `is in use by another Switchboard (pid ${holder}). Stop it, or give this one its own folder: ` +
        `DATA_DIR=.data-2 PORT=3001 SMTP_INBOUND_PORT=2526 npm start`,
    );
  if (holder === process.pid && heldHere.has(dataDir)) throw refuse('is in use by another service in this process');
  try {
    const fd = openSync(lock, 'w', 0o600);
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
  } catch (error) {
    throw refuse(`${describeFsError(error, 'cannot be written')}; choose a folder this user can write`, error);
  }
  heldHere.add(dataDir);
  return {
    release() {
      heldHere.delete(dataDir);
      if (lockHolder(lock) === process.pid) rmSync(lock, { force: true });
    },
  };
}

/** The pid in a data folder's lock file when that process still runs (a `kill -9` leaves the file behind). */
function lockHolder(lock: string): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (pid === process.pid) return pid;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: a process of another user has that pid, so it is not a service this user started on its own folder.
    return errorCode(error) === 'ESRCH' || errorCode(error) === 'EPERM' ? undefined : pid;
  }
  // On Linux a pid can be a zombie (killed, not yet reaped: it holds no file) or reused by another program.
  if (existsSync('/proc/self')) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('node')) return undefined;
    } catch {
      return undefined;
    }
  }
  return pid;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function describeFsError(error: unknown, fallback: string): string {
  switch (errorCode(error)) {
    case 'EACCES':
    case 'EPERM':
      return 'is not writable by this user (permission denied)';
    case 'EROFS':
      return 'is on a read-only file system';
    case 'ENOTDIR':
      return 'is inside something that is not a folder';
    case 'ENOSPC':
      return 'is on a full disk';
    default:
      return fallback;
  }
}
