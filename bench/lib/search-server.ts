/**
 * The search function alone behind the local gateway, in a process of its own, for bench/knowledge-gb.ts: its
 * memory is the function's (as on Lambda, one function per environment), not the whole runner's. Reads the stand-ins'
 * endpoints from the environment the parent's runner set. Prints `{ "port": n }` once it listens; stops when its
 * standard input closes.
 */
import { startHttpServer } from '../../local/http-server.ts';

const server = await startHttpServer({ port: 0, host: '127.0.0.1', fns: ['search'] });
await server.setReady(true);
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.stop().then(() => process.exit(0));
});
