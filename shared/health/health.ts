import type { CreditLedger } from '../credits/credit-ledger.ts';
import { monthLabel } from '../credits/month.ts';
import type { ProjectApiTokenGrant } from '../auth/token-store.ts';

/** A cheap check that a dependency answers, without doing real work (no generation, no search). */
export interface DependencyProbe {
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
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  let cached: { at: number; result: Promise<HealthReport['botrag']> } | undefined;
  const probe = (at: number) => {
    if (!cached || at - cached.at >= deps.probeCacheMs)
      cached = { at, result: runProbes(deps.probes, deps.probeTimeoutMs) };
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

async function runProbes(probes: DependencyProbe[], timeoutMs: number): Promise<HealthReport['botrag']> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  const results = await Promise.allSettled(probes.map((p) => p.probe(signal)));
  const latencyMs = Math.round(performance.now() - started);
  const failures = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${probes[i]!.name}: ${reason(r.reason, signal)}`] : [],
  );
  return failures.length ? { ok: false, latencyMs, detail: failures.join('; ') } : { ok: true, latencyMs };
}

function reason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'no answer within the deadline';
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
