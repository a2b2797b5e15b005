/**
 * Closed-loop HTTP load for bench/completion.ts, run in its own Node process so the load does not share the event
 * loop of the service under test: `connections` loops each keep one keep-alive connection busy for `seconds`,
 * after a warm-up, and every response time is recorded (sub-millisecond resolution).
 * Usage: tsx bench/completion-client.ts '<json options>'  → prints one JSON line of results.
 */
import { Agent, request } from 'node:http';

export interface LoadOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  requests: number;
  /** Requests including the warm-up (what the server did while this client ran). */
  allRequests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  statuses: Record<string, number>;
}

const opts = JSON.parse(process.argv[2]!) as LoadOptions;
const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
const url = new URL(opts.url);

function once(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: opts.method, headers: { ...opts.headers, 'content-length': Buffer.byteLength(opts.body) }, agent },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function run(seconds: number) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const status = await once();
          latencies.push(performance.now() - t0);
          statuses[status] = (statuses[status] ?? 0) + 1;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { latencies, statuses, errors };
}

const warm = await run(opts.warmupSeconds);
const started = performance.now();
const { latencies, statuses, errors } = await run(opts.seconds);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
const result: LoadResult = { requests: latencies.length, allRequests: latencies.length + warm.latencies.length, rps: latencies.length / elapsed, p50: pct(50), p90: pct(90), p99: pct(99), errors, statuses };
console.log(JSON.stringify(result));
agent.destroy();
