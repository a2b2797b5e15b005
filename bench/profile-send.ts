/**
 * Where a send's CPU goes: V8 CPU profiles of the service (one thread: LOCAL_THREADS=0, so dynalite, the gateway and
 * the functions are all in it) while it answers `--sends` POST /api/integration/generic, one at a time, on a metered
 * sms and a whatsapp channel (sandbox provider, the contact's window open), for each tree given; then self time per
 * function and per module, in µs per request, and the difference of each tree from the first.
 * The profiler runs only around the sends (bench/lib/profile-toggle.mjs, SIGUSR2): start-up and set-up are not in it.
 * Trees: `--trees <label>=<dir>,...` (a checkout with node_modules) or `<label>=git:<ref>` (extracted with
 * git archive, this tree's node_modules linked, as bench/conversations.ts does). Rounds alternate the order.
 * Run: npx tsx bench/profile-send.ts --trees base=git:869dce3,this=. [--sends 1500] [--rounds 2] [--top 40]
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { addInto, type CpuProfile, selfTimes } from './lib/cpu-profile.ts';
import { machine, processCpuMs } from './lib/harness.ts';
import { sendTargets } from './lib/send-targets.ts';

const { values } = parseArgs({
  options: {
    trees: { type: 'string', default: 'base=git:main,this=.' },
    sends: { type: 'string', default: '1500' },
    rounds: { type: 'string', default: '2' },
    top: { type: 'string', default: '40' },
    kinds: { type: 'string', default: 'sms,whatsapp' },
  },
});
const sends = Number(values.sends);
const rounds = Number(values.rounds);
const top = Number(values.top);
const kinds = values.kinds!.split(',') as ('sms' | 'whatsapp')[];
const here = resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-profile-send-'));
const hook = join(here, 'bench/lib/profile-toggle.mjs');

const trees = values.trees!.split(',').map((spec) => {
  const [label, where] = spec.split('=') as [string, string];
  if (!where.startsWith('git:')) return { label, dir: resolve(where) };
  const dir = join(scratch, `tree-${label}`);
  mkdirSync(dir);
  execFileSync('sh', ['-c', `git archive ${where.slice(4)} | tar -x -C ${dir}`], { cwd: here });
  symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'));
  return { label, dir };
});

interface Service {
  child: ChildProcess;
  baseUrl: string;
  adminKey: string;
  out: () => string;
}

async function spawnIn(cwd: string, profileDir: string): Promise<Service> {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const svc = await spawnService(
    { DATA_DIR: dataDir, LOCAL_THREADS: '0', PROFILE_DIR: profileDir, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    60_000,
    { cwd, nodeArgs: ['--import', hook] },
  );
  return { ...svc, out: svc.output };
}

const cpuMs = processCpuMs;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function post(url: string, token: string, body: string): Promise<number> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => ok(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

const payloads = {
  sms: JSON.stringify({ to: '+5511988887777', body: 'Your code is 123456', metadata: { orderId: 42 } }),
  whatsapp: JSON.stringify({ number: '5511988887777', message: 'Your code is 123456' }),
};

async function setUp(svc: Service) {
  const { sms, whatsapp } = await sendTargets(svc);
  const url = `${svc.baseUrl}/api/integration/generic`;
  return { sms, whatsapp, url };
}

type Sum = {
  fns: Map<string, number>;
  modules: Map<string, number>;
  calls: Map<string, number>;
  bytes: Map<string, number>;
  requests: number;
  cpuMs: number;
};
const sums = new Map<string, Sum>();
const add = addInto;

for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...trees].reverse() : trees;
  for (const tree of order) {
    const profileDir = mkdtempSync(join(scratch, `prof-${tree.label}-`));
    const svc = await spawnIn(tree.dir, profileDir);
    const t = await setUp(svc);
    for (const kind of kinds) {
      const token = t[kind].token;
      for (let i = 0; i < 200; i++) await post(t.url, token, payloads[kind]); // warm-up: JIT, caches
      await new Promise((r) => setTimeout(r, 1000)); // the warm-up's events fan out before the profile starts
      const count = (what: string) => svc.out().split(what).length - 1;
      const [started, written] = [count('profile started'), count('profile written')];
      svc.child.kill('SIGUSR2');
      while (count('profile started') === started) await new Promise((r) => setTimeout(r, 10));
      const cpu0 = cpuMs(svc.child.pid!);
      for (let i = 0; i < sends; i++) {
        const status = await post(t.url, token, payloads[kind]);
        if (status >= 300) throw new Error(`${tree.label} ${kind}: ${status}`);
      }
      await new Promise((r) => setTimeout(r, 1000)); // the events' fan-out, as bench/conversations.ts counts it
      const cpu = cpuMs(svc.child.pid!) - cpu0;
      svc.child.kill('SIGUSR2');
      while (count('profile written') === written) await new Promise((r) => setTimeout(r, 20));
      const path = /profile written (\S+)\n$/.exec(svc.out())![1]!;
      const { fns, modules } = selfTimes(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile);
      const key = `${tree.label} ${kind}`;
      const sum = sums.get(key) ?? {
        fns: new Map(),
        modules: new Map(),
        calls: new Map(),
        bytes: new Map(),
        requests: 0,
        cpuMs: 0,
      };
      add(sum.fns, fns);
      add(sum.modules, modules);
      const calls = JSON.parse(readFileSync(`${path}.calls.json`, 'utf8')) as Record<
        string,
        { n: number; bytes: number }
      >;
      add(sum.calls, new Map(Object.entries(calls).map(([k, v]) => [k, v.n])));
      add(sum.bytes, new Map(Object.entries(calls).map(([k, v]) => [k, v.bytes])));
      sum.requests += sends;
      sum.cpuMs += cpu;
      sums.set(key, sum);
      const busy = [...fns].filter(([k]) => !k.startsWith('(idle)')).reduce((s, [, v]) => s + v, 0);
      console.error(
        `round ${round + 1} ${key}: process CPU ${(cpu / sends).toFixed(2)} ms/req, profiled non-idle ${(busy / 1000 / sends).toFixed(2)} ms/req (${path})`,
      );
    }
    await stopProcess(svc.child, 'SIGTERM');
  }
}

console.log(
  `\n## profile-send: ${sends} sends × ${rounds} rounds per tree and channel (${machine()}, load ${loadavg()[0]!.toFixed(1)})`,
);
const [first, ...others] = trees;
for (const kind of kinds) {
  const base = sums.get(`${first!.label} ${kind}`)!;
  const perReq = (s: Sum, m: Map<string, number>, k: string) => (m.get(k) ?? 0) / s.requests;
  for (const other of others) {
    const mine = sums.get(`${other.label} ${kind}`)!;
    console.log(`\n### ${kind}, requests the service's HTTP servers took per send: ${first!.label} → ${other.label}`);
    console.log(
      `| request | calls ${first!.label} | calls ${other.label} | body bytes ${first!.label} | body bytes ${other.label} |`,
    );
    console.log('|---|---|---|---|---|');
    for (const k of [...new Set([...base.calls.keys(), ...mine.calls.keys()])].sort())
      console.log(
        `| ${k} | ${perReq(base, base.calls, k).toFixed(2)} | ${perReq(mine, mine.calls, k).toFixed(2)} | ${perReq(base, base.bytes, k).toFixed(0)} | ${perReq(mine, mine.bytes, k).toFixed(0)} |`,
      );
  }
  for (const what of ['modules', 'fns'] as const) {
    for (const other of others) {
      const mine = sums.get(`${other.label} ${kind}`)!;
      const keysAll = new Set([...base[what].keys(), ...mine[what].keys()]);
      keysAll.delete('(idle)');
      for (const k of [...keysAll]) if (k.startsWith('(idle)')) keysAll.delete(k);
      const rows = [...keysAll]
        .map((k) => ({ k, a: perReq(base, base[what], k), b: perReq(mine, mine[what], k) }))
        .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a))
        .slice(0, what === 'modules' ? 25 : top);
      const total = (s: Sum) =>
        [...s[what]].filter(([k]) => !k.startsWith('(idle)')).reduce((t, [, v]) => t + v, 0) / s.requests;
      console.log(
        `\n### ${kind}, self time by ${what === 'fns' ? 'function' : 'module'}, µs/request: ${first!.label} → ${other.label}` +
          ` (non-idle total ${total(base).toFixed(0)} → ${total(mine).toFixed(0)}; process CPU ${((base.cpuMs / base.requests) * 1000).toFixed(0)} → ${((mine.cpuMs / mine.requests) * 1000).toFixed(0)})`,
      );
      console.log(`| ${what === 'fns' ? 'function' : 'module'} | ${first!.label} | ${other.label} | Δ |`);
      console.log('|---|---|---|---|');
      for (const r of rows)
        console.log(
          `| ${r.k} | ${r.a.toFixed(1)} | ${r.b.toFixed(1)} | ${(r.b - r.a >= 0 ? '+' : '') + (r.b - r.a).toFixed(1)} |`,
        );
    }
  }
}
