import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createGateway, type GatewayOptions } from '#local/gateway.ts';

/** The local gateway alone on a free 127.0.0.1 port, for tests of the gateway itself. */
export async function listenGateway(options: GatewayOptions): Promise<{ base: string; close(): Promise<void> }> {
  const server = createGateway(options);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
