import { startEmulators, type Emulators } from './emulators.ts';
import { serveInThread } from './threads.ts';

/** The stand-ins' thread: dynalite and fauxqs (./emulators.ts), listening on 127.0.0.1 as on the main thread. */
await serveInThread(async ({ dataDir }: { dataDir: string }) => {
  const { stop, dynamoServer: _server, ...info } = await startEmulators(dataDir);
  return { info: info satisfies Omit<Emulators, 'stop' | 'dynamoServer'>, stop };
});
