import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stopProcess } from '#test/support/process.ts';
import { baselineAndThis, type ComparedService } from './lib/compared-services.ts';
import { adminApi, load, machine, median, processCpuMs } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '4' },
    baseline: { type: 'string', default: 'main' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-limits-'));

type Service = ComparedService;

// Twilio's Messages API as a double: every send answered 201 with a message SID.
let sid = 0;
const twilio = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ sid: `SM${String(++sid).padStart(32, '0')}`, status: 'queued' }));
  });
});
twilio.listen(0, '127.0.0.1');
await once(twilio, 'listening');
const twilioUrl = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;

const services = await baselineAndThis(scratch, values.baseline!, { BOT_RATE_LIMIT_PER_MINUTE: '100000' });

type Kind = 'completion' | 'health' | 'send' | 'sandbox-send';
interface Target {
  svc: Service;
  requests: Record<Kind, { url: string; method: string; headers: Record<string, string>; body?: string }>;
}

const targets: Target[] = await Promise.all(
  services.map(async (svc) => {
    const admin = adminApi(svc);
    const { projectId } = await admin('POST', '/projects', {
      companyId: 1042,
      name: 'bench',
      monthlyBotCredits: 1_000_000_000,
    });
    const { token: apiToken } = await admin('POST', `/projects/${projectId}/api-token`);
    const custom = async (provider?: Record<string, unknown>) => {
      const channel = await admin('POST', `/projects/${projectId}/channels`, {
        type: 'sms',
        name: 'bench',
        address: '+5511999990000',
        credits: 1_000_000_000,
        ...(provider ? { provider } : {}),
      });
      const integration = await admin('POST', `/projects/${projectId}/integrations`, {
        product: 'custom',
        channelId: channel.channelId,
      });
      return integration.token as string;
    };
    const token = await custom({
      kind: 'twilio',
      accountSid: 'AC0123456789abcdef',
      authToken: 'x',
      baseUrl: twilioUrl,
    });
    const sandboxToken = await custom();
    const json = (t: string) => ({ authorization: `Bearer ${t}`, 'content-type': 'application/json' });
    return {
      svc,
      requests: {
        completion: {
          url: `${svc.baseUrl}/api/v1/ai/completion`,
          method: 'POST',
          headers: json(apiToken),
          body: JSON.stringify({ prompt: 'Say hi', instructions: 'Be brief.' }),
        },
        health: {
          url: `${svc.baseUrl}/api/v1/ai/health`,
          method: 'GET',
          headers: { authorization: `Bearer ${apiToken}` },
        },
        send: {
          url: `${svc.baseUrl}/api/integration/generic`,
          method: 'POST',
          headers: json(token),
          body: JSON.stringify({ to: '+5511988887777', body: 'Your code is 123456' }),
        },
        'sandbox-send': {
          url: `${svc.baseUrl}/api/integration/generic`,
          method: 'POST',
          headers: json(sandboxToken),
          body: JSON.stringify({ to: '+5511988887777', body: 'Your code is 123456' }),
        },
      },
    };
  }),
);

type Row = { p50: number; rps: number; cpu: number; errors: number };
const results = new Map<string, Row[]>();
const kinds: Kind[] = ['completion', 'health', 'send', 'sandbox-send'];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...targets].reverse() : targets;
  for (const t of order) {
    for (const kind of kinds) {
      const request = t.requests[kind];
      const probe = await fetch(request.url, request);
      if (probe.status >= 300) throw new Error(`${t.svc.name} ${kind}: ${probe.status} ${await probe.text()}`);
      const cpu0 = processCpuMs(t.svc.child.pid!);
      const r = await load({ ...request, connections, seconds, warmupSeconds: 1 });
      // What each request sets going (a send's event fanned out) settles inside the window counted.
      await new Promise((resolveWait) => setTimeout(resolveWait, 1000));
      const cpu = (processCpuMs(t.svc.child.pid!) - cpu0) / r.allRequests;
      const key = `${t.svc.name} ${kind}`;
      results.set(key, [...(results.get(key) ?? []), { p50: r.p50, rps: r.rps, cpu, errors: r.errors }]);
      console.error(
        `round ${round + 1} ${key}: p50 ${r.p50.toFixed(2)} ms, ${r.rps.toFixed(0)} req/s, CPU ${cpu.toFixed(2)} ms/req, errors ${r.errors}, statuses ${JSON.stringify(r.statuses)}`,
      );
    }
  }
}

console.log(
  `\n### ${rounds} rounds of ${seconds} s, ${connections} connections (${machine()}, load ${loadavg()[0]!.toFixed(1)})`,
);
console.log('| service | request | p50 ms | req/s | CPU ms/request | errors |');
console.log('|---|---|---|---|---|---|');
const med = (rows: Row[], f: (r: Row) => number) => median(rows.map(f));
for (const [key, rows] of results) {
  const at = key.lastIndexOf(' ');
  console.log(
    `| ${key.slice(0, at)} | ${key.slice(at + 1)} | ${med(rows, (r) => r.p50).toFixed(2)} | ${med(rows, (r) => r.rps).toFixed(0)} | ${med(rows, (r) => r.cpu).toFixed(2)} | ${rows.reduce((s, r) => s + r.errors, 0)} |`,
  );
}
for (const kind of kinds) {
  const base = results.get(`${services[0]!.name} ${kind}`)!;
  const mine = results.get(`${services[1]!.name} ${kind}`)!;
  const ratio = (f: (r: Row) => number) => median(mine.map((r, i) => f(r) / f(base[i]!))).toFixed(3);
  console.log(
    `${kind}: this ÷ baseline, median of per-round ratios: CPU/request ${ratio((r) => r.cpu)}, p50 ${ratio((r) => r.p50)}`,
  );
}
for (const svc of services) await stopProcess(svc.child, 'SIGTERM');
twilio.close();
rmSync(scratch, { recursive: true, force: true });
