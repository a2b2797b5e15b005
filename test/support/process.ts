import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  adminKey: string;
  output: () => string;
}

/**
 * V8's compile cache for the processes the tests start, as `npm start` sets it (package.json): relative, so a
 * process run in another checkout keeps that checkout's own. vitest.config.ts gives the test workers its absolute form.
 */
export const COMPILE_CACHE_DIR = 'node_modules/.cache/switchboard-compile';

/**
 * Node's arguments for `local/main.ts` as `npm start` gives them; in a test run, its bundle (LOCAL_RUNNER_BUNDLE,
 * ./runner-bundle.ts: the same code, loaded at a fraction of the CPU). Another checkout (`cwd`) runs its own source.
 */
function mainArgs(cwd?: string): string[] {
  const bundle = cwd === undefined ? process.env.LOCAL_RUNNER_BUNDLE : undefined;
  return [
    '--import',
    './local/typescript-hooks.mjs',
    '--enable-source-maps',
    '--disable-warning=ExperimentalWarning',
    '--experimental-async-context-frame',
    bundle ? join(bundle, 'main.js') : 'local/main.ts',
  ];
}

/**
 * Node's arguments for the services tests start and keep (spawned, and the groups' services), beside `npm start`'s
 * (which benchmarks keep): V8's memory reducer off. It runs full collections in every isolate (the runner's four threads) once a start's
 * allocations slow down, ~1.2 s of CPU in the first minute of each service (bench/history/2026-12-suite-cpu3.md), to
 * give memory back that a test's service never needs back.
 */
export const TEST_SERVICE_NODE_ARGS = ['--no-memory-reducer'];

/**
 * Runs `local/main.ts` with `env` until it exits by itself (a start that must fail), and gives its exit code and
 * output; kills it and fails after `timeoutMs`.
 */
export async function runServiceToExit(
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, mainArgs(), {
    env: { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE_DIR, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  if (code === null) throw new Error(`local/main.ts did not exit within ${timeoutMs} ms:\n${stdout}${stderr}`);
  return { code, stdout, stderr };
}

/** Starts `local/main.ts` (what `npm start` runs) as a separate process and waits for its banner. */
// 60 s: a start is ~2 s here, but a fresh clone's first starts transform every TypeScript file while the other test
// files' services start beside them (nothing was printed after 20 s under a load of 13).
export async function spawnService(
  env: Record<string, string>,
  timeoutMs = 60_000,
  /** Another checkout to run (a benchmark's baseline tree), and Node arguments before the service's own. */
  options: { cwd?: string; nodeArgs?: string[] } = {},
): Promise<ServiceProcess> {
  // Node itself, as `npm start` runs it (not the tsx CLI, which would run the service in a grandchild that a kill misses).
  const testArgs = process.env.VITEST ? TEST_SERVICE_NODE_ARGS : [];
  const child = spawn(process.execPath, [...testArgs, ...(options.nodeArgs ?? []), ...mainArgs(options.cwd)], {
    cwd: options.cwd,
    // As `npm start` runs it, V8's compile cache included (relative: the checkout's own).
    // SMTP on a free port too: test files run side by side.
    env: {
      ...process.env,
      PORT: '0',
      SMTP_INBOUND_PORT: '0',
      NODE_COMPILE_CACHE: COMPILE_CACHE_DIR,
      // Another checkout runs its own sources, threads included, never this one's bundle.
      ...(options.cwd === undefined ? {} : { LOCAL_RUNNER_BUNDLE: undefined }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const base = /Base URL:\s+(\S+)/.exec(out);
    const key = /Admin key:\s+(\S+)/.exec(out);
    if (base && key) return { child, baseUrl: base[1]!, adminKey: key[1]!, output: () => out };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`service${options.cwd ? ` in ${options.cwd}` : ''} did not start:\n${out}`);
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}

/** A long-running child process (an example's server), its output kept and searchable. */
export interface RunningChild {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output; fails if the process exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

export function startChild(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): RunningChild {
  const child = spawn(command, args, {
    cwd: options.cwd,
    // A command runs as a reader would run it (`npm start` from the sources, threads included), not from the tests'
    // bundle of the runner.
    env: { ...process.env, LOCAL_RUNNER_BUNDLE: undefined, ...options.env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npm start's child (tsx, then node) stops with it.
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => out,
    async waitForOutput(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(out);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `${command} ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out}`,
          );
        if (Date.now() > deadline)
          throw new Error(`no ${pattern} from ${command} ${args.join(' ')} within ${timeoutMs} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {}
        await exited;
      }
    },
  };
}

/** Runs a command to its end: its exit code and output (stdout and stderr together). */
export async function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const running = startChild(command, args, options);
  const timer = setTimeout(() => void running.stop(), options.timeoutMs ?? 120_000);
  const code = await new Promise<number | null>((resolve) => running.child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output: running.output() };
}
