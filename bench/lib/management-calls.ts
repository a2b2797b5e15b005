/**
 * What a whole management request runs, counted rather than timed, so the same on a loaded machine as on a quiet
 * one: the DynamoDB operations it sends (as this process's HTTP client sends them, `X-Amz-Target`) and the JavaScript
 * functions it calls (V8's precise coverage with call counts: every function, ours, the SDK's and Node's), per
 * request, for each tree, route and caller of bench/lib/management-requests.ts. Then, per tree and route, the
 * functions whose calls differ most between the project key's request and the admin key's: where a project key's
 * extra work is. A count is not a time (a call to a builtin is one call, whatever it does), but a change that moves
 * thousands of calls shows here before it is measurable in CPU.
 */
import diagnostics from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { Session } from 'node:inspector/promises';
import { type RequestsBench, variantsOf } from './management-requests.ts';

type Coverage = {
  url: string;
  functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[];
};

/** Function calls per request over `calls` requests, by function (name, file, offset). */
async function countCalls(session: Session, calls: number, run: () => Promise<unknown>) {
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  for (let i = 0; i < calls; i++) await run();
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: Coverage[] };
  await session.post('Profiler.stopPreciseCoverage');
  const counts = new Map<string, number>();
  for (const script of result) {
    const file = script.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(shared|functions)\//, '$1/');
    for (const f of script.functions) {
      const range = f.ranges[0];
      if (!range?.count) continue;
      const name = `${f.functionName || '(anonymous)'} ${file}@${range.startOffset}`;
      counts.set(name, (counts.get(name) ?? 0) + range.count / calls);
    }
  }
  return counts;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

/** Prints each variant's DynamoDB operations and function calls per request, and where the two callers differ. */
export async function runCallsCount(bench: RequestsBench): Promise<void> {
  const { variants } = await variantsOf(bench);
  const sent: string[] = [];
  const onRequest = (message: unknown) => {
    const target = (message as { request: ClientRequest }).request.getHeader('x-amz-target');
    if (target) sent.push(String(target).split('.').pop()!);
  };
  diagnostics.subscribe('http.client.request.start', onRequest);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  const counted = new Map<string, Map<string, number>>();
  console.log(`\n#### What each request runs, counted (${bench.calls} requests of each, after a warm-up)`);
  console.log('| tree | route | caller | DynamoDB operations per request | function calls per request |');
  console.log('|---|---|---|---|---|');
  for (const v of variants) {
    sent.length = 0;
    await v.run();
    const operations = sent.join(', ');
    const counts = await countCalls(session, bench.calls, v.run);
    counted.set(v.name, counts);
    console.log(`| ${v.name} | ${operations} | ${total(counts).toFixed(1)} |`);
  }
  diagnostics.unsubscribe('http.client.request.start', onRequest);
  session.disconnect();
  for (const [name, withKey] of counted) {
    const withAdmin = counted.get(name.replace(/project key$/, 'admin key'));
    if (!name.endsWith('| project key') || !withAdmin) continue;
    const rows = [...new Set([...withKey.keys(), ...withAdmin.keys()])]
      .map((f) => [f, withAdmin.get(f) ?? 0, withKey.get(f) ?? 0] as const)
      .filter(([, a, k]) => a !== k)
      .sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1]));
    console.log(
      `\n${name.replace(/ \| project key$/, '')}: project key ${total(withKey).toFixed(1)} calls per request, admin ` +
        `key ${total(withAdmin).toFixed(1)}; the functions that differ most (admin key, project key, difference):`,
    );
    for (const [f, a, k] of rows.slice(0, bench.top ?? 12)) {
      console.log(`  ${a.toFixed(1).padStart(7)} ${k.toFixed(1).padStart(7)} ${(k - a).toFixed(1).padStart(7)}  ${f}`);
    }
  }
}
