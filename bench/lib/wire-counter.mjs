// Preload (`node --import`) for a service a benchmark starts: counts the HTTP requests its threads send, by AWS
// operation (`X-Amz-Target`: `AmazonSQS.SendMessageBatch`, `DynamoDB_20120810.UpdateItem`...) or else by method and
// host (a webhook delivery is `POST 127.0.0.1:<port>`), and writes the counts to `$WIRE_COUNT_DIR/<pid>-<thread>.json`
// every second. The runner's threads (local/threads.ts) are started with an `execArgv` of their own: this module adds
// itself to it, so every thread counts (and, with `WIRE_CPU_PROF_DIR`, writes a CPU profile there). Nothing of the service is changed: a baseline tree is counted the same way.
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const dir = process.env.WIRE_COUNT_DIR;
if (dir) {
  const counts = {};
  const detail = process.env.WIRE_COUNT_DETAIL === '1';
  const count = (k) => (counts[k] = (counts[k] ?? 0) + 1);
  subscribe('http.client.request.start', ({ request }) => {
    const target = request.getHeader('x-amz-target');
    if (detail && String(target).startsWith('DynamoDB')) return; // counted with its body below
    count(target ? String(target) : `${request.method} ${request.host}`);
  });
  if (detail) {
    // `WIRE_COUNT_DETAIL=1`: DynamoDB calls by the kind of item they touch (the key's prefixes, ids left out).
    const { ClientRequest } = createRequire(import.meta.url)('node:http');
    const end = ClientRequest.prototype.end;
    ClientRequest.prototype.end = function (chunk, ...rest) {
      const target = String(this.getHeader('x-amz-target') ?? '');
      if (target.startsWith('DynamoDB')) {
        const text = chunk ? String(chunk) : '';
        const kind = [...text.matchAll(/"S":"([A-Za-z_]+)#/g)]
          .slice(0, 2)
          .map((m) => m[1])
          .join('/');
        count(`${target} ${kind}`);
      }
      return end.call(this, chunk, ...rest);
    };
  }
  const file = join(dir, `${process.pid}-${threadId}.json`);
  const flush = () => writeFileSync(file, JSON.stringify(counts));
  setInterval(flush, 1000).unref();

  const require = createRequire(import.meta.url);
  const threads = require('node:worker_threads');
  const Worker = threads.Worker;
  const self = new URL(import.meta.url).href;
  threads.Worker = class extends Worker {
    constructor(entry, options = {}) {
      const profile = process.env.WIRE_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WIRE_CPU_PROF_DIR}`]
        : [];
      super(entry, { ...options, execArgv: [...(options.execArgv ?? process.execArgv), '--import', self, ...profile] });
    }
  };
  syncBuiltinESMExports();
}
