import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMESPACE, metricNames } from '#shared/contract/metrics.ts';
import { eventually } from '#test/support/eventually.ts';
import { spawnService, stopProcess, type ServiceProcess } from '#test/support/process.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * What an operator reads: the service's own output (`npm start`, as on CloudWatch Logs), JSON lines from
 * Powertools Logger and Metrics. Run as a separate process, so every line the functions and workers write is seen.
 */
let service: ServiceProcess;
let receiver: TestReceiver;
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-observe-'));

beforeAll(async () => {
  receiver = await startReceiver((_delivery, index) => (index === 0 ? 503 : 200));
  service = await spawnService({
    DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    POWERTOOLS_METRICS_DISABLED: 'false',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
  });
}, 30_000);
afterAll(async () => {
  if (service) await stopProcess(service.child, 'SIGTERM');
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function jsonLines(): Record<string, any>[] {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, any>];
      } catch {
        return [];
      }
    });
}

async function admin(method: string, path: string, body?: unknown, requestId?: string) {
  const res = await fetch(`${service.baseUrl}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.adminKey}`,
      'content-type': 'application/json',
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('logs', () => {
  it('carry each invocation its own Lambda context and request ids, with 40 requests in flight at once', async () => {
    const project = await admin('POST', '/projects', { companyId: 77, name: 'Logs' });
    expect(project.status).toBe(201);
    // Each request reads DynamoDB between the moment its keys are set and its "request answered" line, so with
    // keys shared between invocations the lines would carry another request's ids.
    const ids = Array.from({ length: 40 }, (_, i) => `observe-${i}-${Math.random().toString(36).slice(2, 8)}`);
    const answers = await Promise.all(
      ids.map((id, i) =>
        admin('GET', i % 2 ? `/projects/${project.body.projectId}` : '/projects/prj_missing', undefined, id),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(20).fill(200), ...Array(20).fill(404)]);

    const lines = await eventually(async () => {
      const found = jsonLines().filter((l) => l.message === 'request answered' && ids.includes(l.callerRequestId));
      return found.length === ids.length ? found : undefined;
    });
    for (const line of lines) {
      expect(line.requestId).toBe(line.callerRequestId);
      expect(line.apiGatewayRequestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(line.function_name).toBe('admin');
      expect(typeof line.cold_start).toBe('boolean');
      expect(line.service).toBe('switchboard-admin');
      expect(line.route).toMatch(/^GET \/admin\/v1\//);
      expect([200, 404]).toContain(line.status);
    }
    // One line per request, each with its own invocation: no id shows twice.
    expect(new Set(lines.map((l) => l.callerRequestId)).size).toBe(ids.length);
    expect(new Set(lines.map((l) => l.function_request_id)).size).toBe(ids.length);
    expect(new Set(lines.map((l) => l.apiGatewayRequestId)).size).toBe(ids.length);
    // Keys end with their invocation: the next request without x-request-id has no caller id on its lines.
    const answeredBefore = jsonLines().filter((l) => l.message === 'request answered').length;
    await admin('GET', '/projects/prj_missing');
    const last = await eventually(async () => {
      const all = jsonLines().filter((l) => l.message === 'request answered');
      return all.length > answeredBefore ? all.at(-1) : undefined;
    });
    expect(last!.callerRequestId).toBeUndefined();
    expect(last!.requestId).toBe(last!.apiGatewayRequestId);
  });
});

describe('metrics', () => {
  it('a webhook delivery writes an EMF attempt metric per attempt, with its outcome and latency', async () => {
    const project = await admin('POST', '/projects', { companyId: 78, name: 'Metrics' });
    const channel = await admin('POST', `/projects/${project.body.projectId}/channels`, {
      type: 'sms',
      name: 'sms',
      address: '+5511999990000',
    });
    await admin('POST', `/projects/${project.body.projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiver.url,
    });
    const event = await admin('POST', `/projects/${project.body.projectId}/events`, {
      channelId: channel.body.channelId,
      type: 'message.sent',
      data: { n: 1 },
    });
    expect(event.status).toBe(202);
    await receiver.waitFor(2);

    // One EMF line per metric and set of dimensions, as CloudWatch Logs reads them.
    const emf = (name: string) =>
      jsonLines().filter(
        (l) => l[name] !== undefined && l._aws?.CloudWatchMetrics?.[0]?.Namespace === METRIC_NAMESPACE,
      );
    const attempts = await eventually(async () =>
      emf(metricNames.webhookAttempts).length >= 2 && emf(metricNames.webhookAttemptLatency).length >= 2
        ? true
        : undefined,
    );
    expect(attempts).toBe(true);
    for (const [name, unit] of [
      [metricNames.webhookAttempts, 'Count'],
      [metricNames.webhookAttemptLatency, 'Milliseconds'],
    ] as const) {
      const lines = emf(name);
      expect(lines.map((l) => l.outcome).sort()).toEqual(['http-error', 'success']);
      for (const line of lines) {
        const [directive] = line._aws.CloudWatchMetrics;
        expect(directive.Dimensions).toEqual([['service', 'outcome']]);
        expect(directive.Metrics).toEqual([{ Name: name, Unit: unit }]);
        expect(line.service).toBe('switchboard-deliver');
        expect(typeof line._aws.Timestamp).toBe('number');
      }
    }
    for (const line of emf(metricNames.webhookAttempts)) expect(line[metricNames.webhookAttempts]).toBe(1);
    for (const line of emf(metricNames.webhookAttemptLatency)) {
      expect(line[metricNames.webhookAttemptLatency]).toBeGreaterThanOrEqual(0);
      expect(line[metricNames.webhookAttemptLatency]).toBeLessThan(15_000);
    }
    // The fan-out counted the event it turned into a delivery job.
    const fannedOut = jsonLines().filter((l) => l[metricNames.eventsFannedOut] !== undefined);
    expect(fannedOut.reduce((sum, l) => sum + l[metricNames.eventsFannedOut], 0)).toBeGreaterThanOrEqual(1);
  });
});
