import type { RecordedUnits } from '#infra/recorded-units.ts';
import { ceilingOf, fmt, limits, type LoadRow, type ScenarioLoad, scenarioLoad } from './load.ts';
import { ceilings, oneConversation, scaled, scenarios } from './scenarios.ts';
import type { DeploymentCaps } from './template.ts';

/** The capacity model's answer: every scenario's rows, the documented ceilings, in JSON or as tables. */

export type Verdict = 'ok' | 'over target' | 'over limit';

export const verdictOf = (share: number): Verdict =>
  share <= limits.target + 1e-9 ? 'ok' : share <= 1 ? 'over target' : 'over limit';

export interface Ceiling {
  name: string;
  unit: string;
  /** The rate at which the binding key reaches the target share of its limit. */
  rate: number;
  /** Twice that (with a target of 50 %): where the binding key is at its limit. */
  hardRate: number;
  binding: string;
  why: string;
}

export interface CapacityReport {
  target: number;
  scenarios: (ScenarioLoad & { verdict: Verdict })[];
  ceilings: Ceiling[];
}

export function capacityReport(units: RecordedUnits, caps: DeploymentCaps): CapacityReport {
  const found: Ceiling[] = ceilings.map(({ name, unit, scenario }) => {
    const { rate, binding } = ceilingOf(units, scenario, caps);
    return {
      name,
      unit,
      rate,
      hardRate: rate / limits.target,
      binding: binding?.name ?? 'none',
      why: binding
        ? `${binding.name} (${fmt(binding.load)} ${binding.unit.replace('/s', '')} per ${unit.replace('/s', '')}; limit ${fmt(binding.limit)} ${binding.unit})`
        : '',
    };
  });
  const conversation = found.find((c) => c.name.startsWith('events per conversation'))!;
  const all = [...scenarios, scaled(oneConversation, conversation.rate, 'S2b')].map((s) => {
    const load = scenarioLoad(units, s, caps);
    const worst = load.rows.filter((r) => r.kind === 'partition' || r.kind === 'fifo')[0];
    return { ...load, verdict: worst ? verdictOf(worst.share) : ('ok' as Verdict) };
  });
  return { target: limits.target, scenarios: all, ceilings: found };
}

const pct = (share: number) =>
  `${share >= 10 ? Math.round(share * 100).toLocaleString('en-US') : (share * 100).toFixed(1)} %`;

function table(rows: LoadRow[]): string[] {
  const header = ['', 'partitions', 'load', 'limit', 'share', 'verdict', 'made of'];
  const body = rows.map((r) => [
    `${r.kind} ${r.name}`,
    r.partitions >= 1_000_000 ? 'many' : r.partitions.toLocaleString('en-US'),
    `${fmt(r.load)} ${r.unit}`,
    `${fmt(r.limit)} ${r.unit}`,
    pct(r.share),
    verdictOf(r.share),
    r.detail,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...body.map(line)];
}

export function printReport(report: CapacityReport, options: { all?: boolean } = {}): string {
  const out: string[] = [];
  out.push(`Target: every partition and message group at most ${report.target * 100} % of its limit.`, '');
  for (const s of report.scenarios) {
    out.push(`${s.scenario.id}: ${s.scenario.title}  →  ${s.verdict.toUpperCase()}`);
    out.push(`  (${s.scenario.assumptions})`);
    const shown = options.all ? s.rows : s.rows.filter((r) => r.share >= 0.001 || r.kind !== 'partition');
    for (const l of table(shown)) out.push(`  ${l}`);
    if (s.perItem.length)
      out.push(
        `  one partition per request (message, event, key hash): at most ${fmt(Math.max(...s.perItem.map((p) => p.wcu)))} WCU per request on ${s.perItem[0]!.name}`,
      );
    out.push('');
  }
  out.push('Ceilings (the rate at which the binding key reaches the target; twice that, its limit):');
  for (const c of report.ceilings)
    out.push(`  ${c.name}: ${fmt(c.rate)} ${c.unit} (limit ${fmt(c.hardRate)}), bound by ${c.why}`);
  return out.join('\n');
}
