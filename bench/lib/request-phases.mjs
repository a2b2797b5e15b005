/**
 * Loaded into a process with `--import` (bench/knowledge-anchor.ts --phases): for each request to a path holding
 * `REQUEST_PHASES_PATH` (default `/ai/search`), the wall time and the process's CPU, from its arrival, at each
 * outgoing call's start, its response headers and its last byte, and at the answer's end (Node's HTTP diagnostics
 * channels). At exit, the medians of the last `REQUEST_PHASES_LAST` (default 200) requests, as JSON lines, go to the
 * file `REQUEST_PHASES_OUT`.
 */
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

const pathPart = process.env.REQUEST_PHASES_PATH ?? '/ai/search';
const all = [];
let current;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mark = (request, label) => request.marks.push([label, performance.now() - request.t0, cpuMs() - request.c0]);
dc.subscribe('http.server.request.start', ({ request }) => {
  if (!request.url.includes(pathPart)) return;
  current = { t0: performance.now(), c0: cpuMs(), marks: [] };
  all.push(current);
});
dc.subscribe('http.server.response.finish', () => {
  if (!current) return;
  mark(current, 'answered');
  current = undefined;
});
dc.subscribe('http.client.request.start', ({ request }) => {
  if (!current) return;
  const at = current;
  const target = String(request.getHeader('x-amz-target') ?? `${request.method} ${request.path.split('?')[0]}`);
  mark(at, `send ${target.replace(/^DynamoDB_\d+\./, '')}`);
  request.once('response', (res) => {
    mark(at, '  headers');
    res.once('end', () => mark(at, '  body'));
  });
});
process.on('exit', () => {
  const rows = all.slice(-Number(process.env.REQUEST_PHASES_LAST ?? 200));
  if (!rows.length || !process.env.REQUEST_PHASES_OUT) return;
  const median = (xs) => {
    const s = xs.sort((a, b) => a - b);
    return Number(s[Math.floor(s.length / 2)].toFixed(2));
  };
  const lines = rows[0].marks.map(([label], i) =>
    JSON.stringify({
      phase: label,
      wallMs: median(rows.map((r) => r.marks[i]?.[1] ?? 0)),
      cpuMs: median(rows.map((r) => r.marks[i]?.[2] ?? 0)),
    }),
  );
  writeFileSync(process.env.REQUEST_PHASES_OUT, `${lines.join('\n')}\n`);
});
