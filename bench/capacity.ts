/**
 * The capacity model, read off the wire. Runs a mixed workload in the local runner (one event loop, so every call is
 * recorded with the function that made it): sends, status callbacks, inbound messages, reported events, knowledge
 * files, Bots API calls, for two projects; records every DynamoDB, SQS and S3 request (item images before and after,
 * refused conditions, items a query evaluated); turns them into units per request type on each key class of the
 * table and its indexes (keys and projections read from the synthesized CDK template), each queue and FIFO message
 * group, S3 and function invocations; then scales them to the named scenarios (bench/capacity/scenarios.ts) against
 * the limits of partitions, message groups, function concurrency and API throttles, as the template configures them.
 *
 *   npx tsx bench/capacity.ts                 the tables, per scenario
 *   npx tsx bench/capacity.ts --json          the same, machine-readable
 *   npx tsx bench/capacity.ts --write         also rewrites infra/recorded-units.json (what infra/cost.ts and
 *                                             infra/capacity-plan.ts read); commit it with the change that moved it
 *   npx tsx bench/capacity.ts --recorded      no workload: the committed infra/recorded-units.json against this tree's
 *                                             template
 *   --readme                                  the README's "Limits" table, from the same figures
 *   --default-quotas                          check the scenarios against a deployment on AWS's default quotas rather
 *                                             than one sized for the target
 *
 * The workload loads the console's pages: build it first (`npm run build:console`; `npm start` and `npm test` do).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { RECORDED_UNITS_FILE, type RecordedUnits, recordedUnits } from '#infra/recorded-units.ts';
import { synth } from '#test/infra/synth.ts';
import { defaultQuotas } from './capacity/load.ts';
import { capacityReport, limitsMarkdown, printReport } from './capacity/report.ts';
import type { sharedKeys } from './capacity/shared-keys.ts';
import { deploymentCaps, synthesizeTable, tableSchema } from './capacity/template.ts';
import { recordUnits } from './capacity/record.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    recorded: { type: 'boolean', default: false },
    'per-type': { type: 'string', default: '5' },
    all: { type: 'boolean', default: false },
    'default-quotas': { type: 'boolean', default: false },
    readme: { type: 'boolean', default: false },
  },
});

const log = (line: string) => {
  if (!values.json) console.error(line);
};
// Recorded first, against the table alone: the stack's plan reads the recorded units, and a request type the
// scenarios newly name is in them only once this run has written them.
let units: RecordedUnits;
let shared: ReturnType<typeof sharedKeys> = [];
if (values.recorded) units = recordedUnits();
else {
  const recorded = await recordUnits(tableSchema(await synthesizeTable()), {
    perType: Number(values['per-type']),
    log,
  });
  units = recorded.units;
  shared = recorded.shared;
  if (values.write) {
    writeFileSync(RECORDED_UNITS_FILE, `${JSON.stringify(units, null, 2)}\n`);
    log(`wrote ${RECORDED_UNITS_FILE.pathname}`);
  }
}

// The deployment as it deploys by default (AWS's default quotas), and as sized for the target: the quotas the plan
// says the target needs.
const defaults = synth();
const quotas = defaults.stack.plan.quotasNeeded;
const sized = synth({
  settings: { lambdaConcurrencyQuota: quotas.lambdaConcurrency, apiRequestQuota: quotas.apiRequestsPerSecond },
});
const checked = values['default-quotas'] ? defaults : sized;
const caps = deploymentCaps(checked.template.toJSON());
const deployment = values['default-quotas']
  ? { name: "AWS's default quotas (1,000 concurrent, 10,000 requests/s)", quotas: defaultQuotas }
  : {
      name: `the plan for an account with ${quotas.lambdaConcurrency.toLocaleString('en-US')} concurrent executions and ${quotas.apiRequestsPerSecond.toLocaleString('en-US')} API requests/s`,
      quotas: { lambdaConcurrency: quotas.lambdaConcurrency, apiRequestsPerSecond: quotas.apiRequestsPerSecond },
    };

const report = capacityReport(units, caps, deployment, {
  atDefaultQuotas: defaults.stack.plan,
  sized: sized.stack.plan,
});
if (values.readme) {
  console.log(limitsMarkdown(report));
} else if (values.json) {
  console.log(JSON.stringify({ ...report, sharedKeys: shared, units: values.recorded ? undefined : units }, null, 2));
} else {
  console.log(printReport(report, { all: values.all }));
  if (!values.recorded) {
    console.log('', 'Keys written by requests of both projects (a ceiling shared by every tenant):');
    for (const s of shared.filter((x) => x.keys.length))
      console.log(`  ${s.requestType}${s.controlPlane ? ' (control plane)' : ''}: ${s.keys.join(', ')}`);
    const pools = [...new Set(shared.flatMap((s) => s.sharded))];
    if (pools.length)
      console.log(`  (and shards of a pool every tenant spreads over, met by chance: ${pools.join(', ')})`);
    if (!shared.some((s) => s.keys.length)) console.log('  none');
  }
}
process.exit(0);
