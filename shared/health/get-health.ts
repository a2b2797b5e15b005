import type { CreditLedger } from '../credits/index.ts';
import { monthLabel } from '../credits/index.ts';
import type { ProjectApiTokenGrant } from '../auth/index.ts';

/** A cheap check that a dependency answers, without doing real work (no generation, no search). */
export interface DependencyProbe {
  /** What the customer sees when it fails ("model provider", "knowledge store"): no model id, host or bucket. */
  name: string;
  probe(signal: AbortSignal): Promise<void>;
}

export interface HealthReport {
  companyId: number;
  botrag: { ok: boolean; latencyMs: number; detail?: string };
  credits: { available: number; month: string };
  checkedAt: string;
}

/**
 * Diagnostics for a project: 1. probe the model provider and the knowledge store in parallel, within a deadline;
 * 2. read the month's balance. Never calls the model to generate. A failed probe is reported, not thrown.
 *
 * Probe results are shared for `probeCacheMs` by every request an instance serves (and concurrent requests share
 * one probe in flight): a client polling health a thousand times a second must not turn into a thousand calls to
 * S3 and the model provider. The balance is always read fresh.
 */
export function makeGetHealth(deps: {
  credits: CreditLedger;
  probes: DependencyProbe[];
  probeTimeoutMs: number;
  probeCacheMs: number;
  /** Where the full failure goes (model id, AWS error, HTTP status): the log, never the response. */
  onProbeFailure?: (dependency: string, error: unknown) => void;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  let cached: { at: number; result: Promise<HealthReport['botrag']> } | undefined;
  const probe = (at: number) => {
    if (!cached || at - cached.at >= deps.probeCacheMs)
      cached = { at, result: runProbes(deps.probes, deps.probeTimeoutMs, deps.onProbeFailure) };
    return cached.result;
  };
  return async function getHealth(grant: ProjectApiTokenGrant): Promise<HealthReport> {
    const at = now();
    const [botrag, available] = await Promise.all([
      probe(at.getTime()),
      deps.credits.available({ projectId: grant.projectId, monthlyAllowance: grant.monthlyBotCredits }, at),
    ]);
    return {
      companyId: grant.companyId,
      botrag,
      credits: { available: Math.max(0, available), month: monthLabel(at) },
      checkedAt: at.toISOString(),
    };
  };
}

/**
 * Runs the probes within the deadline. The report names the failed dependency and a cause the customer can act on
 * (wait and retry, or tell us); the error itself can carry the model id or the cloud error's name, so it goes to
 * `onProbeFailure` only.
 */
async function runProbes(
  probes: DependencyProbe[],
  timeoutMs: number,
  onProbeFailure: ((dependency: string, error: unknown) => void) | undefined,
): Promise<HealthReport['botrag']> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  const results = await Promise.allSettled(probes.map((p) => p.probe(signal)));
  const latencyMs = Math.round(performance.now() - started);
  const failures = results.flatMap((r, i) => {
    if (r.status === 'fulfilled') return [];
    const name = probes[i]!.name;
    onProbeFailure?.(name, r.reason);
    return [`${name}: ${signal.aborted ? 'no answer within the deadline' : 'unavailable'}`];
  });
  return failures.length ? { ok: false, latencyMs, detail: failures.join('; ') } : { ok: true, latencyMs };
}
