import { once } from 'node:events';
import type { Server } from 'node:http';
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
