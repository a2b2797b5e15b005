import { AccessDeniedException, BedrockRuntimeClient, CountTokensCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockAwsClient } from '#test/support/aws-client-mock.ts';
import { describe, expect, it } from 'vitest';
import { modelProbeFromSettings, modelSettings } from '#shared/model-providers/index.ts';
import { parseConfig } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import type { CreditLedger } from '#shared/credits/index.ts';
import { makeGetHealth, type DependencyProbe } from '#shared/health/get-health.ts';

const grant = { kind: 'projectApi' as const, projectId: 'prj_1', companyId: 1042, monthlyBotCredits: 10 };
const credits = { available: async () => 7 } as unknown as CreditLedger;

describe('health use case', () => {
  it('reports ok with the probes latency, the balance and the month', async () => {
    const getHealth = makeGetHealth({
      credits,
      probes: [{ name: 'a', probe: async () => {} }],
      probeTimeoutMs: 100,
      probeCacheMs: 0,
      now: () => new Date('2026-02-03T04:05:06Z'),
    });
    expect(await getHealth(grant)).toEqual({
      companyId: 1042,
      botrag: { ok: true, latencyMs: expect.any(Number) },
      credits: { available: 7, month: '02/2026' },
      checkedAt: '2026-02-03T04:05:06.000Z',
    });
  });

  it('reports which dependency failed, and a probe that hangs past the deadline', async () => {
    const probes: DependencyProbe[] = [
      { name: 'model', probe: async () => Promise.reject(new Error('HTTP 503')) },
      {
        name: 'knowledge store',
        probe: (signal) =>
          new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      },
    ];
    const report = await makeGetHealth({ credits, probes, probeTimeoutMs: 50, probeCacheMs: 0 })(grant);
    expect(report.botrag.ok).toBe(false);
    expect(report.botrag.detail).toContain('model');
    expect(report.botrag.detail).toContain('knowledge store: no answer within the deadline');
    expect(report.botrag.latencyMs).toBeGreaterThanOrEqual(45);
  });

  it('shares one probe among the requests of the cache window', async () => {
    let probes = 0;
    let clock = 0;
    const getHealth = makeGetHealth({
      credits,
      probes: [{ name: 'a', probe: async () => void probes++ }],
      probeTimeoutMs: 100,
      probeCacheMs: 10_000,
      now: () => new Date(clock),
    });
    await Promise.all([getHealth(grant), getHealth(grant), getHealth(grant)]);
    clock = 9_999;
    await getHealth(grant);
    expect(probes).toBe(1);
    clock = 10_000;
    await getHealth(grant);
    expect(probes).toBe(2);
  });
});

describe('health detail', () => {
  const bedrock = mockAwsClient(BedrockRuntimeClient);

  it('tells the caller which dependency failed, and keeps the model id and the cloud error for the log', async () => {
    bedrock
      .on(CountTokensCommand)
      .rejects(new AccessDeniedException({ message: 'not authorized for this model', $metadata: {} }));
    const probe = await modelProbeFromSettings(
      { cfg: parseConfig({ TABLE_NAME: 't' }), logger: createLogger('health') },
      modelSettings.parse({ MODEL_PROVIDER: 'bedrock', BEDROCK_MODEL_ID: 'acme.secret-model-v7:0' }),
    );
    const logged: { dependency: string; error: string }[] = [];
    const report = await makeGetHealth({
      credits,
      probes: [probe],
      probeTimeoutMs: 2_000,
      probeCacheMs: 0,
      onProbeFailure: (dependency, error) => logged.push({ dependency, error: String(error) }),
    })(grant);
    expect(report.botrag).toEqual({ ok: false, latencyMs: expect.any(Number), detail: 'model provider: unavailable' });
    expect(logged).toEqual([
      { dependency: 'model provider', error: expect.stringMatching(/acme\.secret-model-v7:0.*AccessDeniedException/) },
    ]);
  });
});
