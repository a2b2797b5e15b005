import { describe, expect, it, vi } from 'vitest';
import { meteredProviders } from '#shared/messaging/index.ts';
import { meteredRateLimiter } from '#shared/ratelimit/index.ts';
import { meteredCreditLedger } from '#shared/credits/index.ts';
import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import type { MessageProviders, OutboundMessage } from '#shared/messaging/index.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import { MemoryCreditLedger } from '#test/support/fakes/memory-credit-ledger.ts';
import { recordingMetrics } from '#test/support/recording-metrics.ts';

const account = { projectId: 'prj_1', monthlyAllowance: 10 };

describe('metered ports: what an operator sees counted is what happened', () => {
  it('counts a credit charged only when one was taken, refunded only when it came back, swept by how many', async () => {
    const { metrics, totals } = recordingMetrics();
    const inner = new MemoryCreditLedger(1);
    const ledger = meteredCreditLedger(inner, metrics);
    const first = await ledger.charge(account, 'c1', new Date());
    const second = await ledger.charge(account, 'c2', new Date()); // no balance left
    expect(second.charged).toBe(false);
    if (!first.charged) throw new Error('expected a charge');
    expect(await ledger.refund(first.receipt)).toBe(true);
    expect(await ledger.refund(first.receipt)).toBe(false); // refunded once only
    vi.spyOn(inner, 'sweep').mockResolvedValueOnce(3).mockResolvedValueOnce(0);
    await ledger.sweep(new Date());
    await ledger.sweep(new Date());
    expect(totals()).toEqual({
      [metricNames.creditsCharged]: 1,
      [metricNames.creditsRefunded]: 1,
      [metricNames.creditsSwept]: 3,
    });
  });

  it('counts rate-limit rejections, not admissions', async () => {
    const { metrics, totals } = recordingMetrics();
    let n = 0;
    const limiter = meteredRateLimiter(
      { admit: async () => ({ allowed: ++n <= 2, limit: 2, remaining: Math.max(0, 2 - n), resetSeconds: 60 }) },
      metrics,
    );
    for (let i = 0; i < 5; i++) await limiter.admit('token', Date.now());
    expect(totals()).toEqual({ [metricNames.rateLimitRejections]: 3 });
  });

  it('counts sends by provider and outcome, and lets a provider failure through', async () => {
    const { metrics, totals } = recordingMetrics();
    const ok = { send: async () => ({ providerMessageIds: ['m1'] }) };
    const failing = {
      send: async () => {
        throw new Error('provider down');
      },
    };
    const providers = meteredProviders({ sandbox: ok, twilio: failing } as unknown as MessageProviders, metrics);
    const outbound = {} as OutboundMessage;
    await providers.sandbox.send(outbound);
    await expect(providers.twilio.send(outbound)).rejects.toThrow('provider down');
    expect(totals()).toEqual({
      [`${metricNames.sends}{provider=sandbox,outcome=sent}`]: 1,
      [`${metricNames.sends}{provider=twilio,outcome=failed}`]: 1,
    });
  });
});

describe('PowertoolsMetrics', () => {
  it('writes CloudWatch EMF lines: one per value with dimensions, the others aggregated at publish', () => {
    const lines: string[] = [];
    // The suite runs with metrics off (vitest.config.ts: the EMF lines would flood its output); on here.
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const metrics = new PowertoolsMetrics('deliver');
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = String(chunk);
      if (text.includes('"_aws"')) lines.push(text.trim());
      return true;
    });
    metrics.count(metricNames.webhookAttempts, 1, { outcome: 'timeout' });
    metrics.count(metricNames.eventsFannedOut, 2);
    metrics.count(metricNames.eventsFannedOut, 3);
    expect(lines).toHaveLength(1);
    metrics.publish();
    metrics.publish(); // nothing left: nothing written
    expect(lines).toHaveLength(2);
    const [attempt, fannedOut] = lines.map((l) => JSON.parse(l));
    expect(attempt._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'Switchboard',
        Dimensions: [['service', 'outcome']],
        Metrics: [{ Name: 'WebhookAttempts', Unit: 'Count' }],
      },
    ]);
    expect(attempt).toMatchObject({ service: 'switchboard-deliver', outcome: 'timeout', WebhookAttempts: 1 });
    expect(fannedOut.EventsFannedOut).toEqual([2, 3]);
    write.mockRestore();
  });

  it('gives each value with dimensions its own dimensions only, value after value', () => {
    const lines: Record<string, any>[] = [];
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const metrics = new PowertoolsMetrics('completion');
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = String(chunk);
      if (text.includes('"_aws"')) lines.push(JSON.parse(text));
      return true;
    });
    metrics.milliseconds(metricNames.modelLatency, 12, { provider: 'offline', outcome: 'answered' });
    metrics.count(metricNames.modelInputTokens, 7, { provider: 'offline' });
    metrics.count(metricNames.webhookAttempts, 1, { outcome: 'success' });
    write.mockRestore();
    expect(lines.map((l) => l._aws.CloudWatchMetrics[0].Dimensions)).toEqual([
      [['service', 'provider', 'outcome']],
      [['service', 'provider']],
      [['service', 'outcome']],
    ]);
    expect(lines[0]).toMatchObject({ service: 'switchboard-completion', provider: 'offline', outcome: 'answered' });
    expect(lines[0]?.ModelLatency).toBe(12);
    expect(lines[1]).toMatchObject({ provider: 'offline', ModelInputTokens: 7 });
    expect(lines[1]?.outcome).toBeUndefined();
    expect(lines[2]).toMatchObject({ outcome: 'success', WebhookAttempts: 1 });
    expect(lines[2]?.provider).toBeUndefined();
    expect(lines[2]?.ModelInputTokens).toBeUndefined();
  });
});
