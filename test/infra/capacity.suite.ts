import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SOURCE_CONCURRENCY, RESERVED_SHARE, WORKER_SHARE } from '#infra/capacity-plan.ts';
import type { DeploymentSettings } from '#infra/settings.ts';
import { defaultSynth, synth, type Synthesized } from './synth.ts';

/**
 * Concurrency and throttles derived from the capacity model for the target (S1-S5, infra/capacity-target.ts), as the
 * synthesized template carries them: on an account with AWS's default quotas, and on one with the quotas the target
 * needs.
 */
type Resource = { Type: string; Properties: Record<string, any> };

type Quotas = Pick<DeploymentSettings, 'lambdaConcurrencyQuota' | 'apiRequestQuota'>;

let defaults: Synthesized;
let sized: Synthesized;
/** Both deployments with the quotas they were planned for. */
let accounts: { s: Synthesized; quotas: Quotas }[];
beforeAll(() => {
  defaults = defaultSynth();
  const q = defaults.stack.plan.quotasNeeded;
  const needed = { lambdaConcurrencyQuota: q.lambdaConcurrency, apiRequestQuota: q.apiRequestsPerSecond };
  sized = synth({ settings: needed });
  accounts = [
    { s: defaults, quotas: { lambdaConcurrencyQuota: 1_000, apiRequestQuota: 10_000 } },
    { s: sized, quotas: needed },
  ];
}, 600_000);

const resourcesOf = (s: Synthesized) => Object.values(s.template.toJSON().Resources as Record<string, Resource>);

/** Every API method with the throttle it runs under: its own method setting, else the stage default. */
function methodThrottles(s: Synthesized) {
  const resources = s.template.toJSON().Resources as Record<string, Resource>;
  const pathOf = (id: { Ref?: string } | undefined): string => {
    const r = id?.Ref ? resources[id.Ref] : undefined;
    return r?.Type === 'AWS::ApiGateway::Resource' ? `${pathOf(r.Properties.ParentId)}/${r.Properties.PathPart}` : '';
  };
  const stage = resourcesOf(s).find((r) => r.Type === 'AWS::ApiGateway::Stage')!.Properties;
  const settings = stage.MethodSettings as { ResourcePath: string; HttpMethod: string; ThrottlingRateLimit: number }[];
  const stageDefault = settings.find((m) => m.ResourcePath === '/*')!.ThrottlingRateLimit;
  return resourcesOf(s)
    .filter((r) => r.Type === 'AWS::ApiGateway::Method')
    .map((r) => {
      const path = pathOf(r.Properties.ResourceId) || '/';
      const verb = r.Properties.HttpMethod === 'ANY' ? '*' : r.Properties.HttpMethod;
      const own = settings.find((m) => m.ResourcePath === `/${path.replace(/\//g, '~1')}` && m.HttpMethod === verb);
      return {
        method: `${r.Properties.HttpMethod} ${path}`,
        rate: own?.ThrottlingRateLimit ?? stageDefault,
        own: !!own,
      };
    });
}

const providerCallback = (method: string) => / \/inbound\//.test(method);

describe('deployment settings for the capacity target', () => {
  it('on an account sized for the target, every setting is twice what the busiest scenario needs (an event source at most 1,000)', () => {
    for (const row of sized.stack.plan.rows)
      expect(row.value, row.setting).toBe(
        row.setting.includes('event source') ? Math.min(EVENT_SOURCE_CONCURRENCY.max, row.planned) : row.planned,
      );
    // Twice the need: the busiest scenario runs at half of each setting.
    for (const row of sized.stack.plan.rows) expect(row.planned, row.setting).toBeGreaterThanOrEqual(2 * row.need);
  });

  it("within the account's quotas: reservations at most half of its concurrency (100 left unreserved), workers' caps at most 40 %", () => {
    for (const { s, quotas } of accounts) {
      const quota = quotas.lambdaConcurrencyQuota;
      const functions = resourcesOf(s).filter((r) => r.Type === 'AWS::Lambda::Function');
      const reserved = functions.reduce((n, f) => n + (f.Properties.ReservedConcurrentExecutions ?? 0), 0);
      expect(reserved).toBeLessThanOrEqual(Math.min(quota * RESERVED_SHARE, quota - 100));
      const mappings = resourcesOf(s).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
      const caps = mappings.map((m) => m.Properties.ScalingConfig.MaximumConcurrency as number);
      for (const cap of caps) expect(cap).toBeGreaterThanOrEqual(EVENT_SOURCE_CONCURRENCY.min);
      expect(caps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(
        Math.max(quota * WORKER_SHARE, caps.length * EVENT_SOURCE_CONCURRENCY.min),
      );
    }
  });

  it('every API method together stays within the API request quota, so no tenant traffic can spend what a provider callback needs', () => {
    for (const { s, quotas } of accounts) {
      const methods = methodThrottles(s);
      const total = methods.reduce((n, m) => n + m.rate, 0);
      expect(total).toBeLessThanOrEqual(quotas.apiRequestQuota);
      // The callbacks' own share: at most half of the quota, the rest for every other method.
      const callbacks = methods.filter((m) => providerCallback(m.method) && m.own);
      expect(callbacks.reduce((n, m) => n + m.rate, 0)).toBeLessThanOrEqual(quotas.apiRequestQuota / 2);
    }
  });

  it('provider callbacks (Twilio, WhatsApp) have their own method throttle and their own reserved instances', () => {
    for (const { s } of accounts) {
      const methods = methodThrottles(s);
      for (const method of ['POST /inbound/twilio/{channelId}', 'POST /inbound/whatsapp/{channelId}']) {
        const m = methods.find((x) => x.method === method);
        expect(m?.own, method).toBe(true);
        expect(m!.rate).toBe(s.stack.plan.methodThrottles[method]!.rate);
      }
      for (const fn of ['inbound-twilio', 'inbound-whatsapp']) {
        const f = resourcesOf(s).find(
          (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === `Switchboard ${fn}`,
        );
        expect(f?.Properties.ReservedConcurrentExecutions, fn).toBe(s.stack.plan.reservedConcurrency[fn]);
      }
    }
    // Sized for the target, the Twilio callbacks of S1 run at half their throttle and half their instances.
    const twilio = sized.stack.plan.rows.find((r) => r.setting.startsWith('POST /inbound/twilio'))!;
    expect(twilio.value).toBeGreaterThanOrEqual(2 * twilio.need);
  });

  it('every route has a method throttle of its own; only the catch-alls (404/405) run under the stage default', () => {
    for (const m of methodThrottles(defaults).filter((x) => !x.own)) expect(m.method, m.method).toMatch(/^ANY /);
  });

  it('a deployment may still pin the long routes to a reservation of its own (0: none)', () => {
    const pinned = synth({ settings: { longRouteReservedConcurrency: 0 } });
    for (const fn of ['completion', 'chat-completions', 'extract'])
      expect(pinned.stack.plan.reservedConcurrency[fn]).toBe(0);
    const f = resourcesOf(pinned).find(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === 'Switchboard completion',
    );
    expect(f?.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(pinned.stack.plan.reservedConcurrency['inbound-twilio']).toBeGreaterThan(0);
  });
});
