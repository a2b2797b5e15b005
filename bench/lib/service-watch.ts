import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';

/**
 * Watches a service running in a child process: its resident set (all its threads: gateway, workers, parsing
 * sandbox) read from /proc, and, while some work runs, the peak of it and the latency of `/healthz` beside it.
 */
export function watchService(baseUrl: string, pid: number) {
  /** The service's resident set, MB. */
  const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

  /** While `work` runs: the peak RSS (every 5 ms) and /healthz latencies (one probe every 20 ms, one at a time). */
  async function observed<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number; healthz: number[] }> {
    let peakMb = rssMb();
    let running = true;
    const sampler = setInterval(() => {
      peakMb = Math.max(peakMb, rssMb());
    }, 5);
    const healthz: number[] = [];
    const prober = (async () => {
      while (running) {
        const t = performance.now();
        // A service that died answers nothing: counted as an infinitely slow probe, not a crash of the bench.
        const ok = await fetch(`${baseUrl}/healthz`).then(
          (r) => r.arrayBuffer().then(() => true),
          () => false,
        );
        healthz.push(ok ? performance.now() - t : Number.POSITIVE_INFINITY);
        if (!ok) await new Promise((r) => setTimeout(r, 200));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const value = await work();
      return { value, peakMb: Math.max(peakMb, rssMb()), healthz };
    } finally {
      running = false;
      clearInterval(sampler);
      await prober;
    }
  }

  return { rssMb, observed };
}

/** A TCP port free on 127.0.0.1 a moment ago (for a service's SMTP listener). */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const s = createTcpServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** One event as a webhook receiver got it: its type, when it arrived (performance.now()), its id and channel. */
export interface Arrival {
  type: string;
  at: number;
  eventId: string;
  channelId?: string;
}

/** A webhook receiver that answers 204 and notes when each event arrived. */
export async function startArrivalReceiver(): Promise<{ arrivals: Arrival[]; url: string; close(): void }> {
  const arrivals: Arrival[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrivals.push({ type: event.type, at: performance.now(), eventId: event.id, channelId: event.channel?.id });
      res.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  return {
    arrivals,
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    close: () => receiver.close(),
  };
}
