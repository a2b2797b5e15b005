// What one HTTP request and answer over loopback costs in CPU here, with nothing of ours in it: the floor under every
// call between the local service's functions and its stand-ins (dynalite, fauxqs), which are HTTP on 127.0.0.1.
// A DynamoDB-sized request (a GetItem's JSON) and answer on a kept-alive connection, 10,000 of them, with the client
// on the server's thread and on a worker thread (as the runner's functions call dynalite on its main thread).
//
// Run: node bench/loopback-http.mjs   (CONC=1 for one request at a time; default 4 at once)
import http from 'node:http';
import { isMainThread, Worker, workerData } from 'node:worker_threads';

const N = 10_000;
const conc = Number(process.env.CONC ?? 4);

async function client(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const body = JSON.stringify({ TableName: 't', Key: { pk: { S: 'x'.repeat(40) }, sk: { S: 'y' } } });
  const headers = {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(body),
    'x-amz-target': 'DynamoDB_20120810.GetItem',
  };
  const one = () =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers }, (res) => {
        res.on('data', () => {});
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  let sent = 0;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (sent++ < N) await one();
    }),
  );
  agent.destroy();
}

if (isMainThread) {
  const answer = JSON.stringify({ Item: { pk: { S: 'x' }, v: { S: 'z'.repeat(200) } } });
  const server = http.createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      res.setHeader('content-type', 'application/x-amz-json-1.0');
      res.setHeader('content-length', Buffer.byteLength(answer));
      res.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  for (const where of ['same thread', 'worker thread', 'same thread', 'worker thread']) {
    const before = process.cpuUsage();
    const started = performance.now();
    if (where === 'same thread') await client(port);
    else
      await new Promise((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), { workerData: port });
        worker.on('exit', resolve);
        worker.on('error', reject);
      });
    const used = process.cpuUsage(before);
    const wall = performance.now() - started;
    const us = (micros) => (micros / N).toFixed(0);
    console.log(
      `client on the ${where}, ${conc} at once: ${us(used.user + used.system)} µs of CPU a request ` +
        `(user ${us(used.user)}, system ${us(used.system)}), ${us(wall * 1000)} µs of wall`,
    );
  }
  server.close();
} else {
  await client(workerData);
}
