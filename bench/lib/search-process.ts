/**
 * The search function alone in a process of its own (bench/lib/search-server.ts), as the knowledge benchmarks run
 * it: its memory and CPU are the function's, read from /proc, apart from the runner that serves the stand-ins.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** How the benchmarks' child processes run the repository's TypeScript (as `npm start` does). */
export const NODE_ARGS = [
  '--import',
  './local/typescript-hooks.mjs',
  '--disable-warning=ExperimentalWarning',
  '--experimental-async-context-frame',
];

export const repo = resolve(import.meta.dirname, '../..');

export interface SearchProcess {
  child: ChildProcess;
  port: number;
  rss(): { rssMB: number; hwmMB: number };
  /** CPU milliseconds the process has used, user and system apart (10 ms ticks). */
  cpu(): { user: number; system: number };
  /** CPU milliseconds the process has used (user + system). */
  cpuMs(): number;
}

/**
 * Starts the search server with its bucket reads sent to `s3Endpoint` (a counting proxy, to count them) and the
 * function memory `memoryMb` (its knowledge caches are sized from it). `nodeArgs` and `env` go on top (a profiler).
 */
export async function startSearchProcess(options: {
  s3Endpoint: string;
  memoryMb: number;
  nodeArgs?: string[];
  env?: Record<string, string>;
}): Promise<SearchProcess> {
  const child = spawn(process.execPath, [...NODE_ARGS, ...(options.nodeArgs ?? []), 'bench/lib/search-server.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      S3_ENDPOINT: options.s3Endpoint,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryMb),
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('\n')) done(JSON.parse(out.split('\n')[0]!).port);
    });
    child.on('exit', (code) => fail(new Error(`search server exited ${code}`)));
  });
  const rss = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { rssMB: Math.round(kb('VmRSS') / 1024), hwmMB: Math.round(kb('VmHWM') / 1024) };
  };
  const cpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  };
  const cpuMs = () => {
    const { user, system } = cpu();
    return user + system;
  };
  return { child, port, rss, cpu, cpuMs };
}

/** Closes its standard input (the server's signal to stop) and waits for it to exit. */
export async function stopSearchProcess(p: SearchProcess): Promise<void> {
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.stdin!.end();
  await exited;
}

/** One `POST /api/v1/ai/search` (topK 5): its time to the whole answer and how many excerpts it gave. */
export async function searchOnce(
  port: number,
  token: string,
  botId: string,
  query: string,
): Promise<{ ms: number; results: number }> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/ai/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ botId, query, topK: 5 }),
  });
  const body = (await res.json()) as { trechos?: unknown[] };
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, results: body.trechos?.length ?? 0 };
}
