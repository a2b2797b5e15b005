import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { Agent, request } from 'node:http';
import { cpus, totalmem } from 'node:os';

export interface LoadResult {
  requests: number;
  /** Requests including the warm-up (what the server did while the client ran). */
  allRequests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  statuses: Record<string, number>;
}

/** What the load generator (bench/lib/load-client.ts) is asked to do. */
export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  warmupSeconds?: number;
  /** Record the time to the first body byte instead of the whole response. */
  firstByte?: boolean;
}

/** Runs the load generator in a separate Node process (same Node 22) and returns its measurements. */
export function load(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', new URL('./load-client.ts', import.meta.url).pathname, JSON.stringify(options)],
      { maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadResult);
      },
    );
  });
}

/** The management API of a service started by a benchmark: JSON in, JSON out, with its admin key. */
export function adminApi(svc: { baseUrl: string; adminKey: string }) {
  return async (method: string, path: string, body?: unknown): Promise<any> =>
    (
      await fetch(`${svc.baseUrl}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json();
}

/**
 * The management API over kept-alive `node:http` connections (up to 64 at once), for the benchmarks that post
 * thousands of events: cheaper per call than `fetch`, so the bench process takes less of the machine from the service.
 */
export function keepAliveAdminApi(svc: { baseUrl: string; adminKey: string }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const call = (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; json: any }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        `${svc.baseUrl}/admin/v1${path}`,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${svc.adminKey}`,
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { call, close: () => agent.destroy() };
}

/** The word after `--name` on the command line, or undefined when the option is not given. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 1 ? process.argv[i + 1] : undefined;
}

/** A number given as `--name N`, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const value = argValue(name);
  return value === undefined ? fallback : Number(value);
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
}

/** Sequential in-process calls: per-call latency (ms) of `fn`, after a warm-up. */
export async function inProcess(
  fn: () => Promise<unknown>,
  seconds: number,
  concurrency = 1,
): Promise<{ rps: number; p50: number; p99: number }> {
  const warmEnd = performance.now() + 500;
  while (performance.now() < warmEnd) await fn();
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await fn();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { rps: latencies.length / elapsed, p50: pct(50), p99: pct(99) };
}

/** User + system CPU of a process, every thread, in ms (Linux `/proc/<pid>/stat`: utime and stime, 100 ticks/s). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
