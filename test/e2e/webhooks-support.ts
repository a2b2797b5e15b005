import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a test receiver got. */
export interface ReceivedDelivery {
  at: number;
  /** When the request arrived (its headers), before its body was read: when the attempt started, seen from here. */
  arrivedAt: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/** What the receiver answers: a status (optionally with headers), or `hang` to never answer. */
export type Answer = number | { status: number; headers: Record<string, string> } | 'hang';

/**
 * A real HTTP receiver for webhook tests: records every request and answers with `answer(request, index)`
 * (200 by default). `hang` keeps the request open until `close()`.
 */
export interface TestReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Requests currently open (answered or not). */
  open(): number;
  maxOpen(): number;
  answer: (delivery: ReceivedDelivery, index: number) => Answer;
  /**
   * Resolves with the first `count` deliveries once they arrived; 20 s by default, a delivery being two queue hops
   * from its event and a loaded two-core CI machine taking seconds per hop (only a failure waits that long).
   */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: TestReceiver['answer'] = () => 200): Promise<TestReceiver> {
  const received: ReceivedDelivery[] = [];
  const hanging = new Set<ServerResponse>();
  let open = 0;
  let maxOpen = 0;
  const waiters = new Set<() => void>();
  const receiver: TestReceiver = {
    url: '',
    received,
    open: () => open,
    maxOpen: () => maxOpen,
    answer,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`receiver got ${received.length} of ${count} deliveries within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, 50);
          waiters.add(wake);
        });
      }
      return received.slice(0, count);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server: Server = createServer((req, res) => {
    const arrivedAt = Date.now();
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      const delivery: ReceivedDelivery = { at: Date.now(), arrivedAt, headers: req.headers, body, json: parsed };
      const index = received.push(delivery) - 1;
      for (const wake of waiters) wake();
      const reply = receiver.answer(delivery, index);
      if (reply === 'hang') return void hanging.add(res);
      const { status, headers } = typeof reply === 'number' ? { status: reply, headers: {} } : reply;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(String(status));
    });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** Standard Webhooks headers of a received delivery, as the verifying library wants them. */
export function webhookHeaders(delivery: ReceivedDelivery): Record<string, string> {
  return {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
}

/** The receivers a test file starts, closed together in its `afterAll`. */
export function receiverPool() {
  const started: TestReceiver[] = [];
  return {
    /** Starts a receiver that answers with `answer` (200 by default). */
    async start(answer?: TestReceiver['answer']): Promise<TestReceiver> {
      const receiver = await startReceiver(answer);
      started.push(receiver);
      return receiver;
    },
    /** Closes every receiver started since the last call (the pool may serve the next file of its worker). */
    closeAll: () => Promise.all(started.splice(0).map((r) => r.close())),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
