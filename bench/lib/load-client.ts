/**
 * A small closed-loop HTTP load generator, run as its own process so it does not share the event loop of the
 * server under test. `connections` loops each keep one keep-alive connection busy for `seconds`; every response
 * time is recorded (autocannon's histogram rounds to whole milliseconds, too coarse for sub-ms medians). With
 * `firstByte`, the time recorded is until the first byte of the body (time to first byte of a streamed answer); the
 * loop still reads each response to its end before the next request.
 * Usage: tsx bench/lib/load-client.ts '<json options>'  → prints one JSON line of results.
 */
import { Agent, request } from 'node:http';
import type { LoadOptions, LoadResult } from './harness.ts';

const opts = JSON.parse(process.argv[2]!) as LoadOptions;
const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
const url = new URL(opts.url);

function once(t0: number): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        agent,
      },
      (res) => {
        let firstByteMs: number | undefined;
        res.on('data', () => {
          firstByteMs ??= performance.now() - t0;
        });
        res.on('end', () => {
          const ms = opts.firstByte ? (firstByteMs ?? performance.now() - t0) : performance.now() - t0;
          resolve({ status: res.statusCode ?? 0, ms });
        });
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
          const { status, ms } = await once(t0);
          latencies.push(ms);
          statuses[status] = (statuses[status] ?? 0) + 1;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { latencies, statuses, errors };
}

// The warm-up's answers are not reported; only how many there were (what the server did while this client ran).
const warm = await run(opts.warmupSeconds ?? 1);
const started = performance.now();
const { latencies, statuses, errors } = await run(opts.seconds);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
const allRequests = latencies.length + warm.latencies.length;
console.log(
  JSON.stringify({
    requests: latencies.length,
    allRequests,
    rps: latencies.length / elapsed,
    p50: pct(50),
    p90: pct(90),
    p99: pct(99),
    errors,
    statuses,
  } satisfies LoadResult),
);
agent.destroy();
