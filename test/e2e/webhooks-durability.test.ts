import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workIndex } from '#shared/contract/keys.ts';
import { RECENT_CHANNEL_TTL_MS } from '#shared/messaging/index.ts';
import { LIMIT_CACHE_MS } from '#shared/webhooks/index.ts';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { eventually, settled } from '#test/support/eventually.ts';
import { startTestService, type TestService } from '#test/support/service.ts';
import { receiverPool, sleep, webhookHeaders } from './webhooks-support.ts';

let svc: TestService;
const receivers = receiverPool();
const receiver = receivers.start;
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-webhooks-'));

// On one event loop (`threads: false`): the calls are counted on dynalite's wire whatever thread sends them, and a
// SIGKILL takes the whole process either way; a start costs half the CPU (bench/history/2026-11-test-suite-time.md).
beforeAll(async () => {
  svc = await startTestService({ threads: false });
});
afterAll(async () => {
  await receivers.closeAll();
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('webhook pipeline costs', () => {
  it('reads the channel once per burst of events, fans out with at most one Query per event whatever the number of webhooks, and writes at most twice per attempt (the record; the hourly counters folded per batch)', async () => {
    const { projectId } = await svc.newProject();
    const channel = (
      await svc.admin('POST', `/projects/${projectId}/channels`, {
        type: 'sms',
        name: 'sms',
        address: '+5511999990000',
      })
    ).body;
    const rs = await Promise.all([receiver(), receiver(), receiver(), receiver()]);
    await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: rs[0]!.url,
    });
    for (const r of rs.slice(1)) {
      await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'channel',
        channelId: channel.channelId,
        url: r.url,
      });
    }
    // Events of an ordinary message's size: too large to copy into each webhook's delivery record.
    const post = () =>
      svc.admin('POST', `/projects/${projectId}/events`, {
        channelId: channel.channelId,
        type: 'message.sent',
        data: { text: 'Olá! '.repeat(120) },
      });
    // Warm-up: the deliver worker learns each webhook's health once (one write per webhook, then cached). Its writes
    // (per webhook: the record, the health fold, a share of the counters) end after the receivers answered, later
    // still on a loaded machine: the count starts once they are all in and nothing more comes.
    const warm = recordDynamoCalls(svc);
    await post();
    await Promise.all(rs.map((r) => r.waitFor(1)));
    await eventually(async () => warm.written.length >= 2 * rs.length);
    await settled(() => warm.written.length);
    warm.stop();

    const dynamo = recordDynamoCalls(svc);
    const started = Date.now();
    const events = 5;
    for (let i = 0; i < events; i++) await post();
    await Promise.all(rs.map((r) => r.waitFor(1 + events)));
    // The scheduled sends' sweeper reads and writes its own DUE# items on its own clock: not this pipeline's cost.
    // (its due partitions are DUE#…; its cursor, DUECURSOR, is the one key here without a `#`, so it has no kind).
    const ours = (i: number) => !/^\S+ (DUE|$)/.test(dynamo.items[i] ?? '');
    const count = (op: string) => dynamo.calls.filter((c, i) => c === op && ours(i)).length;
    const records = () => dynamo.written.filter((kind) => kind === 'DLV').length;
    // Each attempt's write follows its receiver's answer: wait for them, then for anything extra to show up.
    await eventually(async () => (records() >= events * rs.length ? true : undefined));
    await settled(() => dynamo.written.length, 500);
    dynamo.stop();
    // The attempts made: one per event and webhook, more only if one was retried (a loaded machine can time an
    // attempt out after the receiver got it). Each attempt the receivers saw, past the warm-up.
    const attempts = rs.reduce((sum, r) => sum + r.received.length, 0) - rs.length;
    expect(attempts).toBeGreaterThanOrEqual(events * rs.length);
    // The two sweepers run every 5 s locally, whatever else happens: the credit sweeper Queries once a run, the event
    // sweeper once per outbox shard and once for the previous layout's key.
    // A late timer can bring a run into the window beside the one on time: one run more than the whole periods.
    const sweeps = (1 + workIndex.outboxPartitions.length + 1) * (Math.ceil((Date.now() - started) / 5_000) + 1);
    // POST /events reads the channel (GetItem) at most once per 5 s in one instance (recent-channels.ts: here the
    // warm-up's read serves these events, or one more once it expired), not once per event; the deliver worker reads
    // a webhook's rateLimitPerSecond (GetItem) at most once per 2 s, shared by the batch's jobs (pacing.ts).
    // Fan-out: one Query per batch of events, so at most one per event
    // (events of one project received together share it); deliver: per attempt, one write of the delivery record
    // (a first attempt that succeeded: a put that shares a BatchWriteItem with the puts that end beside it; any
    // other: an UpdateItem); per batch, one atomic ADD per webhook and hour to the hourly counters (the console's
    // health chart: folded, so a batch of several attempts to one webhook writes them once). These
    // events come one at a time, each to 4 webhooks: a batch holds at most one attempt per webhook, so the fold saves
    // nothing here (test/unit/webhooks/deliver-attempt-stats.test.ts shows it does with several).
    expect(count('Query')).toBeGreaterThanOrEqual(1);
    expect(count('Query')).toBeLessThanOrEqual(events + sweeps);
    expect(records()).toBe(attempts);
    // The fan-out stores each event's body once, whatever the number of its webhooks (their records do not hold it).
    const bodies = dynamo.written.filter((kind) => kind === 'EVTBODY').length;
    expect(bodies).toBe(events);
    // The project's events-per-second limit: one sharded limiter write per reported event, whatever its webhooks.
    const limiter = dynamo.written.filter((kind) => kind === 'RL').length;
    expect(limiter).toBeLessThanOrEqual(events);
    // The fan-out keeps each event once more, for pollers (a week, in the project's feed), whatever its webhooks.
    const feed = dynamo.written.filter((kind) => kind === 'POLL').length;
    expect(feed).toBe(events);
    const dueWrites = dynamo.written.filter((kind) => kind === 'DUE').length;
    const deliveryWrites = dynamo.written.length - bodies - limiter - feed - dueWrites;
    expect(deliveryWrites).toBeGreaterThanOrEqual(attempts + rs.length);
    expect(deliveryWrites).toBeLessThanOrEqual(2 * attempts);
    expect(count('BatchWriteItem') + count('UpdateItem')).toBeLessThanOrEqual(2 * attempts + 3 * events);
    const elapsed = Date.now() - started;
    const item = (kind: string) => dynamo.items.filter((i) => i === kind).length;
    expect(item('GetItem PRJ/CH')).toBeLessThanOrEqual(Math.floor(elapsed / RECENT_CHANNEL_TTL_MS) + 1);
    expect(item('GetItem PRJ/INT')).toBeLessThanOrEqual(rs.length * (Math.floor(elapsed / LIMIT_CACHE_MS) + 1));
    // The fan-out reads the project's webhook change marker once per batch (its own partition), and the project's
    // webhooks only when it moved or its list is not yet remembered.
    expect(item('GetItem WHCHG')).toBeLessThanOrEqual(events);
    expect(count('GetItem')).toBe(item('GetItem PRJ/CH') + item('GetItem PRJ/INT') + item('GetItem WHCHG'));
    expect(dynamo.calls.filter((_, i) => ours(i)).length).toBe(
      count('GetItem') + count('UpdateItem') + count('BatchWriteItem') + count('Query'),
    );
  });
});

describe('webhook deliveries survive a crash', () => {
  it('delivers after a kill -9 what was accepted before it', async () => {
    let up = false;
    const r = await receiver(() => (up ? 200 : 503));
    const env = { DATA_DIR: dataDir, WEBHOOK_RETRY_SCHEDULE: '2,2,2,2,2,2', LOCAL_THREADS: '0' };
    const first = await spawnService(env);
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${first.baseUrl}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${first.adminKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as any;
    };
    const project = await admin('POST', '/projects', { companyId: 5, name: 'Crash' });
    const channel = await admin('POST', `/projects/${project.projectId}/channels`, {
      type: 'sms',
      name: 'sms',
      address: '+5511999990000',
    });
    const webhook = await admin('POST', `/projects/${project.projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: r.url,
    });
    const { eventId } = await admin('POST', `/projects/${project.projectId}/events`, {
      channelId: channel.channelId,
      type: 'message.sent',
      data: { n: 1 },
    });
    await r.waitFor(1);
    // Killed once the failed attempt is recorded and its retry parked in the queue (a crash before that leaves the
    // message to come back after the queue's visibility timeout, 60 s: also delivered, later).
    await eventually(async () => {
      const list = await admin(
        'GET',
        `/projects/${project.projectId}/integrations/${webhook.integrationId}/deliveries`,
      );
      return list.items[0]?.attempts.length === 1 ? true : undefined;
    });
    await sleep(300);
    await stopProcess(first.child, 'SIGKILL');

    up = true;
    const second = await spawnService(env);
    try {
      const received = await r.waitFor(2, 20_000);
      const last = received.at(-1)!;
      expect(last.headers['webhook-id']).toBe(eventId);
      expect(new Webhook(webhook.signingSecret).verify(last.body, webhookHeaders(last))).toBeTruthy();
      const delivery = await eventually(async () => {
        const res = await fetch(
          `${second.baseUrl}/admin/v1/projects/${project.projectId}/integrations/${webhook.integrationId}/deliveries`,
          {
            headers: { authorization: `Bearer ${second.adminKey}` },
          },
        );
        const item = ((await res.json()) as any).items[0];
        return item?.status === 'succeeded' ? item : undefined;
      });
      expect(delivery.attempts.map((a: any) => a.statusCode)).toEqual([...received.slice(0, -1).map(() => 503), 200]);
    } finally {
      await stopProcess(second.child, 'SIGTERM');
    }
  }, 90_000);
});
