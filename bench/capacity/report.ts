import type { CapacityPlan } from '#infra/capacity-plan.ts';
import type { RecordedUnits } from '#infra/recorded-units.ts';
import { type AccountQuotas, ceilingOf, fmt, limits, type LoadRow, type ScenarioLoad, scenarioLoad } from './load.ts';
import { ceilings, oneConversation, scaled, scenarios } from '#infra/capacity-target.ts';
import type { DeploymentCaps } from './template.ts';

/** The capacity model's answer: every scenario's rows, the documented ceilings, in JSON or as tables. */

export type Verdict = 'ok' | 'over target' | 'over limit';

export const verdictOf = (share: number): Verdict =>
  share <= limits.target + 1e-9 ? 'ok' : share <= 1 ? 'over target' : 'over limit';

export interface Ceiling {
  name: string;
  unit: string;
  /** The binding key is one partition for every tenant (no id in it): the ceiling is the deployment's, not a tenant's. */
  shared: boolean;
  /** The rate at which the binding key reaches the target share of its limit. */
  rate: number;
  /** Twice that (with a target of 50 %): where the binding key is at its limit. */
  hardRate: number;
  binding: string;
  why: string;
}

export interface CapacityReport {
  target: number;
  /** What the scenarios were checked against: a deployment with the account quotas the target needs, or AWS's defaults. */
  deployment: string;
  /** Per scenario: the keys' verdict (partitions, message groups) and the settings' (concurrency, throttles). */
  scenarios: (ScenarioLoad & { verdict: Verdict; settingsVerdict: Verdict })[];
  ceilings: Ceiling[];
  /** The deployment's settings for the target and why (infra/capacity-plan.ts), at AWS's default quotas and sized. */
  plan: { atDefaultQuotas: CapacityPlan; sized: CapacityPlan };
}

export function capacityReport(
  units: RecordedUnits,
  caps: DeploymentCaps,
  deployment: { name: string; quotas: AccountQuotas },
  plan: CapacityReport['plan'],
): CapacityReport {
  const found: Ceiling[] = ceilings.map(({ name, unit, per, scenario }) => {
    const { rate, binding } = ceilingOf(units, scenario, caps);
    const shared = Boolean(binding && !binding.name.includes('<'));
    return {
      name,
      unit,
      shared,
      rate,
      hardRate: rate / limits.target,
      binding: binding?.name ?? 'none',
      why: binding ? bindingText(binding, per, shared) : '',
    };
  });
  const conversation = found.find((c) => c.name.startsWith('events per conversation'))!;
  const all = [...scenarios, scaled(oneConversation, conversation.rate, 'S2b')].map((s) => {
    const load = scenarioLoad(units, s, caps, deployment.quotas);
    const worst = (kinds: string[]) => load.rows.find((r) => kinds.includes(r.kind))?.share ?? 0;
    return {
      ...load,
      verdict: verdictOf(worst(['partition', 'fifo'])),
      settingsVerdict: verdictOf(worst(['lambda', 'api'])),
    };
  });
  return { target: limits.target, deployment: deployment.name, scenarios: all, ceilings: found, plan };
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
  out.push(
    `Target: every partition, message group, concurrency cap and throttle at most ${report.target * 100} % of its limit.`,
    `Settings checked: ${report.deployment}.`,
    '',
  );
  for (const s of report.scenarios) {
    out.push(`${s.scenario.id}: ${s.scenario.title}`);
    out.push(`  keys: ${s.verdict.toUpperCase()}; concurrency and throttles: ${s.settingsVerdict.toUpperCase()}`);
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
  out.push('', ...planTable(report.plan));
  return out.join('\n');
}

/** The deployment plan: each setting, what the target needs of it (and where), planned, and what each account gets. */
function planTable(plan: CapacityReport['plan']): string[] {
  const { atDefaultQuotas: small, sized } = plan;
  const q = sized.quotasNeeded;
  const header = ['setting', 'need', 'in', 'planned', 'default account', 'sized account', 'why'];
  const body = sized.rows.map((r, i) => [
    r.setting,
    fmt(r.need),
    r.neededBy,
    fmt(r.planned),
    fmt(small.rows[i]!.value),
    fmt(r.value),
    r.why,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    `Deployment plan for ${sized.target.join(', ')} (infra/capacity-plan.ts): each figure twice what the busiest scenario needs,`,
    `fitted into the account's quotas. The target needs a Lambda concurrency quota of ${q.lambdaConcurrency.toLocaleString('en-US')} and an API`,
    `request quota of ${q.apiRequestsPerSecond.toLocaleString('en-US')}/s ("sized account"; deploy with lambdaConcurrencyQuota and apiRequestQuota`,
    'set to them); "default account" is AWS\'s defaults, 1,000 and 10,000.',
    ...[header, ...body].map((cells) => `  ${line(cells)}`),
  ];
}

/** `gsi3 OUTBOX#<shard>: 2 WCU per event over 64 partitions of 1,000 WCU/s`. */
function bindingText(row: LoadRow, per: string, shared: boolean): string {
  const unit = row.unit.replace('/s', '');
  const what = row.kind === 'fifo' ? 'message group' : 'partition';
  const over = row.partitions > 1 ? `over ${row.partitions.toLocaleString('en-US')} ${what}s` : `on one ${what}`;
  const tenants = shared ? ' (one key for every tenant)' : '';
  return `${row.name}: ${fmt(row.load * row.partitions)} ${unit} per ${per} ${over} of ${fmt(row.limit)} ${row.unit}${tenants}`;
}

/** The README's "Limits" table: each ceiling, at the target and at its limit, with the key that binds it. */
export function limitsMarkdown(report: CapacityReport): string {
  const rows = report.ceilings.map((c) => {
    const [key, ...rest] = c.why.split(': ');
    return `| ${c.name} | ${fmt(c.rate)} | ${fmt(c.hardRate)} | \`${key}\`: ${rest.join(': ')} |`;
  });
  return [
    `| ceiling | at most (${report.target * 100} % of the limit) | limit | what binds it |`,
    '|---|---:|---:|---|',
    ...rows,
  ].join('\n');
}
