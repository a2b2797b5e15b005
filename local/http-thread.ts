import { parentPort } from 'node:worker_threads';
import { startHttpServer, type HttpServerOptions } from './http-server.ts';
import { serveInThread } from './threads.ts';

/** The HTTP thread: the gateway with the HTTP functions (./http-server.ts). */
await serveInThread(async (options: HttpServerOptions) => {
  const server = await startHttpServer(options);
  parentPort!.on('message', (message: { type: string; ready?: boolean }) => {
    if (message.type !== 'ready') return;
    server.setReady(message.ready === true);
    parentPort!.postMessage({ type: 'ready:done' });
  });
  return { info: { port: server.port }, stop: () => server.stop() };
});
