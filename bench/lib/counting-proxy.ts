import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through HTTP proxy in front of the S3 stand-in that counts what the functions behind it read (requests and
 * response bytes of GETs): what a query costs on S3, request by request.
 */
export async function countingProxy(target: string) {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const counts = { gets: 0, bytes: 0 };
  const server = createServer((req, res) => {
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (req.method === 'GET') {
          counts.gets++;
          answer.on('data', (chunk: Buffer) => {
            counts.bytes += chunk.length;
          });
        }
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    reset() {
      counts.gets = 0;
      counts.bytes = 0;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}
