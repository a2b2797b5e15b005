import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, stopProcess, type ServiceProcess } from '#test/support/process.ts';
import { serviceClient, type ServiceClient } from '#test/support/service.ts';

/**
 * One project flooding its send limit does not slow another project down: the flood is refused at its own limit
 * (429, its own bucket item), and the other project's sends keep their latency. The service runs as `npm start`
 * runs it, in a process of its own; the load comes from this one. The flood's requests leave at fixed times (an open
 * loop: a slow answer does not slow it), and the quiet project's latencies beside it are compared with its latencies
 * beside a steady sender of what the flood is let through, in alternating rounds: the same machine, the same minute. Locally every request shares the
 * service's CPU (on AWS each runs in a function instance of its own), so the flood is sized to a few times its
 * limit, not to the machine, the quiet project sends one request at a time (its own queueing is not measured), and
 * the budget allows for what sharing a loaded machine costs.
 */
let service: ServiceProcess;
let svc: ServiceClient;
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-flood-'));

beforeAll(async () => {
  // The quiet project's own limits far above what it sends: a machine that stalls for seconds (a shared, loaded
  // one) hands the service a backlog at once, and only the flooding project's limit is under test here.
  service = await spawnService({
    DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    CUSTOM_TOKEN_RATE_LIMIT_PER_SECOND: '1000',
  });
  svc = serviceClient({
    baseUrl: service.baseUrl,
    adminKey: service.adminKey,
    dataDir,
    smtpPort: 0,
    emulators: undefined as never,
  });
});
afterAll(async () => {
  if (service) await stopProcess(service.child, 'SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

/** A project with a sandbox SMS channel and its custom token. */
async function sender(limits?: { sendsPerSecond: number }) {
  const project = await svc.admin('POST', '/projects', { companyId: 77, name: 'Flood', ...(limits ? { limits } : {}) });
  const projectId = project.body.projectId as string;
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    name: 'SMS',
    type: 'sms',
    address: '+15005550006',
  });
  const custom = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'custom',
    channelId: channel.body.channelId,
  });
  return custom.body.token as string;
}

/** Sends at `perSecond` for `ms`, each at its planned time whatever the answers before it: statuses and latencies. */
async function openLoop(token: string, perSecond: number, ms: number) {
  const results: { status: number; ms: number; at: number }[] = [];
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < (perSecond * ms) / 1000; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      (async () => {
        const sentAt = performance.now();
        const res = await svc.send(token, { to: '+5511988887777', body: `n${i}` });
        await res.arrayBuffer();
        results.push({ status: res.status, ms: performance.now() - sentAt, at: performance.now() - start });
      })(),
    );
  }
  await Promise.all(pending);
  return results;
}

/** Sends one at a time (each after the previous answer and a pause) until `ms` has passed: latencies only. */
async function closedLoop(token: string, pauseMs: number, ms: number) {
  const results: { status: number; ms: number }[] = [];
  const end = performance.now() + ms;
  for (let i = 0; performance.now() < end; i++) {
    const sentAt = performance.now();
    const res = await svc.send(token, { to: '+5511988887777', body: `q${i}` });
    await res.arrayBuffer();
    results.push({ status: res.status, ms: performance.now() - sentAt });
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  return results;
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1]!;

describe('one project flooding', { timeout: 180_000 }, () => {
  it("another project's sends keep their p99 while the flood is refused at its own limit", async () => {
    const quiet = await sender({ sendsPerSecond: 500 });
    const steady = await sender({ sendsPerSecond: 500 });
    const noisy = await sender({ sendsPerSecond: 2 });
    // Warm every path (first calls load modules and fill caches).
    await Promise.all([closedLoop(quiet, 50, 1_000), openLoop(steady, 4, 1_000), openLoop(noisy, 10, 1_000)]);

    // The anchor: the quiet project (one send at a time) beside another project whose sends cost the service about
    // what the flood will: the two a second it is let through, and its refusals (one token read each, about a
    // quarter of a send), as two more. The flood: five times its limit. They alternate, two seconds each, so that
    // a change in the machine's load (the other test files' work) falls on both, not on one of them.
    const beside: { status: number; ms: number }[] = [];
    const control: { status: number; ms: number }[] = [];
    const flooded: { status: number; ms: number }[] = [];
    const flood: { status: number; ms: number }[] = [];
    // What the flood's limit lets through: a full bucket of two at each round's start (the anchor's two seconds
    // refill it), then two a second over the round's span (longer when a loaded machine stretches its arrivals).
    let allowed = 0;
    for (let round = 0; round < 3; round++) {
      const [b, c] = await Promise.all([closedLoop(quiet, 50, 2_000), openLoop(steady, 4, 2_000)]);
      beside.push(...b);
      control.push(...c);
      const [f, n] = await Promise.all([closedLoop(quiet, 50, 2_000), openLoop(noisy, 10, 2_000)]);
      flooded.push(...f);
      flood.push(...n);
      allowed += 2 + Math.ceil((2 * Math.max(...n.map((r) => r.at))) / 1000);
    }

    const refused = flood.filter((r) => r.status === 429).length;
    const accepted = flood.filter((r) => r.status === 200).length;
    // About fifteen of the sixty pass (eighteen at most on time), the rest are refused, none fails otherwise.
    expect(accepted).toBeLessThanOrEqual(allowed);
    expect(refused).toBeGreaterThan(0);
    expect(refused + accepted).toBe(flood.length);
    const statuses = (rs: { status: number }[]) => [...new Set(rs.map((r) => r.status))];
    expect(statuses(control)).toEqual([200]);
    expect(statuses(beside)).toEqual([200]);
    expect(statuses(flooded)).toEqual([200]);

    const anchor = p99(beside.map((r) => r.ms));
    const during = p99(flooded.map((r) => r.ms));
    console.log(
      `quiet project p99: beside a steady sender ${anchor.toFixed(1)} ms, beside the flood ${during.toFixed(1)} ms; ` +
        `flood: ${accepted} sent, ${refused} refused (429)`,
    );
    // Within noise: beside the anchor's load of about the same cost, the flood takes nothing more from the quiet
    // project (its refusals write nothing and touch no key of anyone else). The budget allows for a loaded machine.
    expect(during).toBeLessThanOrEqual(2 * anchor + 200);
  });
});
