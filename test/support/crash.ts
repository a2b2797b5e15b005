import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService, type ServiceProcess } from './process.ts';
import { serviceClient, type ServiceClient } from './service.ts';

/**
 * A service run as `npm start` runs it (its own process, data under one DATA_DIR), that a named failpoint kills with
 * SIGKILL (shared/kernel/failpoints.ts), and that starts again on the same data: for the durability audit's crash
 * points (docs/durability.md). Sweeps act on marks and charges older than a second and run once that is past after a
 * start (and after each mark or charge written), so what a crash leaves is repaired within seconds.
 */
export const CRASH_SETTINGS = {
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  EVENT_SWEEP_AFTER_SECONDS: '1',
  CREDIT_SWEEP_AFTER_SECONDS: '1',
  WEBHOOK_RECOVER_CLAIM_STALE_SECONDS: '1',
  BOT_RATE_LIMIT_PER_MINUTE: '100000',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};

export interface CrashableService {
  process: ServiceProcess;
  client: ServiceClient;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Resolves when the process has died (a failpoint fired); rejects after `ms`. */
  died(ms?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface CrashRun {
  dataDir: string;
  /** Starts the service on this run's data, with `failpoints` armed (comma-separated names, `name:n` for the nth). */
  start(failpoints?: string, env?: Record<string, string>): Promise<CrashableService>;
  /**
   * The service this run started last, armed with `failpoints` from now on (FAILPOINTS_FILE), or a new one when it
   * has died: the service restarted after one crash point serves the next one, ~1.3 s of CPU less per crash point.
   * The caller arms it once what the previous test left has settled (its test waited for it).
   */
  armed(failpoints: string): Promise<CrashableService>;
  /** Stops whatever is still running and removes the data. */
  cleanUp(): Promise<void>;
}

/**
 * `threads: false` runs the service on one event loop (`LOCAL_THREADS=0`): SIGKILL takes the whole process either
 * way, so what a named failpoint leaves does not depend on the runner's threads, and a start without them costs
 * half the CPU (`bench/service-start.ts`: ~1.5 s instead of ~3.5 s; the crash-point files start 20 services). The
 * crash ledger kills the threaded runner at random instants, as `npm start` runs it.
 */
export function crashRun(options: { threads?: boolean } = {}): CrashRun {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-crash-'));
  const failpointsFile = join(dataDir, 'failpoints');
  const arm = (failpoints: string) => {
    // Whole or not at all: the service reads the file at every failpoint.
    writeFileSync(`${failpointsFile}.next`, failpoints);
    renameSync(`${failpointsFile}.next`, failpointsFile);
  };
  const running: CrashableService[] = [];
  const run: CrashRun = {
    dataDir,
    async armed(failpoints) {
      const last = running.at(-1);
      if (!last?.alive()) return run.start(failpoints);
      arm(failpoints);
      return last;
    },
    async start(failpoints, env = {}) {
      arm(failpoints ?? '');
      // A generous start-up deadline: a restart right after a kill replays the stand-ins' logs on a busy machine.
      const proc = await spawnService(
        {
          ...CRASH_SETTINGS,
          ...(options.threads === false ? { LOCAL_THREADS: '0' } : {}),
          DATA_DIR: dataDir,
          FAILPOINTS_FILE: failpointsFile,
          ...env,
        },
        180_000,
      );
      const exited = new Promise<void>((resolve) => proc.child.once('exit', () => resolve()));
      const service: CrashableService = {
        process: proc,
        client: serviceClient({
          baseUrl: proc.baseUrl,
          adminKey: proc.adminKey,
          dataDir,
          smtpPort: 0,
          emulators: undefined as never,
        }),
        alive: () => proc.child.exitCode === null && proc.child.signalCode === null,
        async died(ms = 20_000) {
          await Promise.race([
            exited,
            new Promise((_, reject) =>
              setTimeout(() => reject(new Error(`the service did not die within ${ms} ms:\n${proc.output()}`)), ms),
            ),
          ]);
        },
        async stop() {
          if (proc.child.exitCode === null && proc.child.signalCode === null) {
            proc.child.kill('SIGTERM');
            await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
            if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
          }
        },
      };
      running.push(service);
      return service;
    },
    async cleanUp() {
      await Promise.all(running.map((s) => s.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return run;
}
