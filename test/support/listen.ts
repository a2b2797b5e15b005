import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A test double's server, listening on 127.0.0.1 at a port the system chose. */
export interface LocalServer {
  port: number;
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 at a free port. `close()` ends every connection first, requests still open included: a double
 * that hangs on purpose, or a client's kept-alive socket, would otherwise hold `server.close()` until it times out.
 */
export async function listenLocal(server: Server): Promise<LocalServer> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A free port on 127.0.0.1, for a process the test starts that must be told its port before it listens: drawn below
 * Linux's range for outgoing connections (32768 on), where no connection the machine opens meanwhile can take it,
 * and tried before it is handed out.
 */
export async function freeLocalPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (free) return port;
  }
}
