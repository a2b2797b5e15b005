import { fork } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, type FSWatcher, mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ServiceOptions } from '#local/service.ts';
import { processCpu } from './process-cpu.ts';
import { COMPILE_CACHE_DIR, TEST_SERVICE_NODE_ARGS } from './process.ts';
import { bootRequest, registerGroupService } from './group-lifetime.ts';
import { runnerBundle } from './runner-bundle.ts';
import type { HostedServiceInfo } from './service-host.ts';

/**
 * One service for a group of e2e files: a Vitest project's global setup starts it in a child process
 * (./service-host.ts) and stops it after the group's files; the files reach it through `sharedService()` in
 * ./service.ts, which waits for the file the host writes once the service answers. Booting once per group instead of
 * once per file is what keeps `npm test` short; every test still makes its own projects, so files never share data
 * by accident.
 *
 * Nothing waits for a boot but the group's own files: Vitest runs the projects' global setups one after another
 * before any file, so five services (the bundles group's first build of the deploy bundles among them) booted in turn
 * while the cores had nothing else to do (bench/history/2026-11-test-suite-time.md). A service boots when its group's
 * first file asks for it, or with the run for the groups whose files start at once (`groupSetup`).
 */
export interface HostedService {
  /**
   * Where the host writes {@link HostedServiceInfo} once the service answers, or `{ "error": … }` if it died first.
   */
  infoFile: string;
  ready: Promise<HostedServiceInfo>;
  /** Stops the service; rejects when, in bundles mode, a function made an AWS call its role would deny. */
  stop(): Promise<void>;
}

/** A fresh path for {@link hostService} to write the service's info to (the files wait for it). */
export function newInfoFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'switchboard-group-info-')), 'service.json');
}

/** `label`: the group's name, in the CPU log (./cpu-log.ts). */
export function hostService(options: ServiceOptions, label = 'group', infoFile = newInfoFile()): HostedService {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-group-'));
  const times = { start: Date.now() / 1000, ready: 0 };
  const profile = cpuProfileSettings(label);
  // From the runner bundle when there is one (./runner-bundle.ts): the host's main thread is the whole service in the
  // groups on one event loop, and loads it at a fraction of the CPU of the sources module by module. Bundles mode
  // stays on the sources: it synthesizes the stack, whose modules find the project from where they are.
  const bundle = options.functions === 'bundles' ? undefined : process.env.LOCAL_RUNNER_BUNDLE;
  const host = bundle ? join(bundle, 'service-host.js') : new URL('./service-host.ts', import.meta.url);
  const child = fork(host, [], {
    execArgv: [
      ...TEST_SERVICE_NODE_ARGS,
      ...profile.execArgv,
      '--import',
      './local/typescript-hooks.mjs',
      '--enable-source-maps',
      '--disable-warning=ExperimentalWarning',
      '--experimental-async-context-frame',
    ],
    env: {
      // Quiet, as the test files' own services are (vitest.config.ts): nothing reads a group service's log lines or
      // metrics, and writing them cost its CPU (~3,000 EMF lines per run). A variable set in the shell still wins.
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...process.env,
      NODE_COMPILE_CACHE: COMPILE_CACHE_DIR,
      SERVICE_HOST_OPTIONS: JSON.stringify({ ...options, dataDir }),
      SERVICE_HOST_INFO_FILE: infoFile,
      ...profile.env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise<HostedServiceInfo>((resolve, reject) => {
    const onExit = (code: number | null) => {
      const error = `the group's service exited (${code}) before it was ready`;
      // The group's files are waiting on the file: they fail with this instead of timing out.
      writeFileSync(infoFile, JSON.stringify({ error }));
      reject(new Error(error));
    };
    child.once('exit', onExit);
    child.on('message', (message: { type: string; info?: HostedServiceInfo }) => {
      if (message.type !== 'ready') return;
      times.ready = Date.now() / 1000;
      child.off('exit', onExit);
      resolve(message.info!);
    });
  });
  // A boot that fails is reported by the files that wait for it (and by `stop`), not as an unhandled rejection.
  ready.catch(() => {});
  return {
    infoFile,
    ready,
    async stop() {
      await ready.catch(() => {});
      logHostCpu(label, child.pid, times);
      const stopped = new Promise<string[]>((resolve) => {
        child.on('message', (message: { type: string; denied?: string[] }) => {
          if (message.type === 'stopped') resolve(message.denied ?? []);
        });
        child.once('exit', () => resolve([]));
      });
      if (child.connected) child.send({ type: 'stop' });
      const denied = await Promise.race([
        stopped,
        new Promise<string[]>((resolve) => setTimeout(() => resolve([]), 30_000).unref()),
      ]);
      // A profiled host writes its main thread's profile as it exits: killed, it would write none.
      if (profile.execArgv.length && child.exitCode === null)
        await Promise.race([once(child, 'exit'), sleep(60_000, undefined, { ref: false })]);
      if (child.exitCode === null) child.kill('SIGKILL');
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      rmSync(dirname(infoFile), { recursive: true, force: true });
      if (denied.length) throw new Error(`AWS calls the deployed roles would deny:\n${denied.join('\n')}`);
    },
  };
}

/**
 * A group's global setup: `export default groupSetup({ env: {...} })` in test/support/groups/<group>.ts. `extra`
 * starts what the service depends on first (a model double) and returns the settings that point at it.
 *
 * The service boots when the group's first file asks for it (`sharedService()` writes {@link bootRequest}, watched
 * here), not with the run: the files run longest first across all projects (./sequencer.ts), so a group of short
 * files starts minutes in, and its service would idle until then (the strict group's first file came after 367 s of
 * a 385 s run). A file rather than a reporter's hook, so that a `--reporter` given on the command line (which
 * replaces the config's) cannot leave the files waiting. `eager` boots it with the run instead: the e2e group, whose
 * files start at once, and the bundles group, whose boot builds the deploy bundles (about a minute of CPU on a fresh
 * clone) beside the first files.
 */
export function groupSetup(
  options: ServiceOptions,
  extra?: () => Promise<{ env: Record<string, string>; provide?: Record<string, unknown>; stop(): Promise<void> }>,
  { eager = false }: { eager?: boolean } = {},
) {
  return async function setup(project: { name: string; provide(key: string, value: unknown): void }) {
    // The runner's threads from its bundle (./runner-bundle.ts), as the files' own services run them.
    process.env.LOCAL_RUNNER_BUNDLE ??= await runnerBundle();
    const dependency = await extra?.();
    const infoFile = newInfoFile();
    let service: HostedService | undefined;
    // On one event loop unless the group asks for threads: the files of a group keep both cores busy themselves,
    // and without the runner's threads a group service spends ~15 % less CPU on the same files and starts on half
    // (bench/history/2026-11-test-suite-time.md). The threaded runner, `npm start`'s default, is what the `e2e` and
    // `bundles` groups, most `own` files' services and the crash ledger run.
    const boot = () => {
      service ??= hostService(
        { threads: false, ...options, env: { ...options.env, ...dependency?.env } },
        project.name,
        infoFile,
      );
    };
    const requested = basename(bootRequest(infoFile));
    let watcher: FSWatcher | undefined;
    try {
      // A platform that gives no file name (Node's docs allow it) boots on any change: before the boot, the request is
      // the only file written there.
      watcher = watch(dirname(infoFile), (_event, name) => {
        if (name === null || name === requested) boot();
      });
    } catch {
      // No watch to be had (the machine's inotify watches used up): the service boots with the run, as it used to.
      boot();
    }
    project.provide('service', { infoFile });
    for (const [key, value] of Object.entries(dependency?.provide ?? {})) project.provide(key, value);
    // Stopped after the group's last file (./group-lifetime.ts) or at the end of the run, whichever comes first.
    const stop = registerGroupService(project.name, async () => {
      watcher?.close();
      try {
        await service?.stop();
      } finally {
        await dependency?.stop();
        rmSync(dirname(infoFile), { recursive: true, force: true });
      }
    });
    if (eager) boot();
    return stop;
  };
}

/**
 * With `TEST_SERVICE_CPU_PROF=<dir>`: a group's service is profiled from start to stop, its main thread by Node's
 * `--cpu-prof` into `<dir>/<group>/`, its runner threads by bench/lib/thread-profile.mjs into `<dir>/<group>/threads/`
 * (`npx tsx bench/profile-top.ts <dir>/<group>` sums them up). Nothing otherwise.
 */
function cpuProfileSettings(label: string): { execArgv: string[]; env: Record<string, string> } {
  const dir = process.env.TEST_SERVICE_CPU_PROF;
  if (!dir) return { execArgv: [], env: {} };
  const out = resolve(dir, label);
  return {
    execArgv: ['--cpu-prof', `--cpu-prof-dir=${out}`],
    env: {
      LOCAL_THREAD_IMPORT: fileURLToPath(new URL('../../bench/lib/thread-profile.mjs', import.meta.url)),
      TEST_SERVICE_CPU_PROF_THREADS: join(out, 'threads'),
    },
  };
}

/**
 * With `TEST_CPU_LOG` (./cpu-log.ts): the group service's CPU over its life, its bundle builds included, and when it
 * was started, answered and was stopped (Unix seconds).
 */
function logHostCpu(label: string, pid: number | undefined, times: { start: number; ready: number }): void {
  const log = process.env.TEST_CPU_LOG;
  if (!log || pid === undefined) return;
  try {
    const { own, children } = processCpu(pid);
    const line = { file: `${label} group's service`, cpu: own, children, ...times, end: Date.now() / 1000 };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  } catch {
    // Gone already: nothing to log.
  }
}
