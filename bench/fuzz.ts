/**
 * The untrusted-input fuzzers (test/support/fuzzers.ts) run longer than `npm test` runs them: for each parser, inputs
 * per second, the median and slowest input's time (wall, and CPU), the most memory one input added, and any input
 * over its budget (CPU time, memory) or with an outcome its parser may not give (a finding). Time is the parser's alone
 * (building the input is not counted); inputs per second counts both.
 *
 *   npx tsx bench/fuzz.ts [--seconds 30] [--only "HTML to text"] [--seed 1]
 */
import fc from 'fast-check';
import { FUZZERS, runWithinBudget } from '#test/support/fuzzers.ts';
import { argValue, machine, median, numberArg } from './lib/harness.ts';

const seconds = numberArg('seconds', 30);
const only = argValue('only');
let seed = numberArg('seed', Date.now() % 1_000_000);
const firstSeed = seed;

interface Row {
  parser: string;
  inputs: number;
  perSecond: number;
  medianMs: number;
  slowestMs: number;
  slowestCpuMs: number;
  slowest: string;
  maxMb: number;
  findings: string[];
}

const rows: Row[] = [];
for (const fuzzer of FUZZERS.filter((f) => !only || f.name === only)) {
  const times: number[] = [];
  let slowest = { ms: 0, cpuMs: 0, input: '' };
  let maxMb = 0;
  const findings: string[] = [];
  await fuzzer.warmUp?.();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    const [input] = fc.sample(fuzzer.inputs, { numRuns: 1, seed: seed++ });
    try {
      const { ms, cpuMs, mb } = await runWithinBudget(fuzzer, input);
      times.push(ms);
      maxMb = Math.max(maxMb, mb);
      if (ms > slowest.ms) slowest = { ms, cpuMs, input: fuzzer.describe(input) };
    } catch (error) {
      findings.push(`seed ${seed - 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const elapsed = (performance.now() - started) / 1000;
  rows.push({
    parser: fuzzer.name,
    inputs: times.length + findings.length,
    perSecond: (times.length + findings.length) / elapsed,
    medianMs: times.length ? median(times) : 0,
    slowestMs: slowest.ms,
    slowestCpuMs: slowest.cpuMs,
    slowest: slowest.input,
    maxMb,
    findings,
  });
  const row = rows.at(-1)!;
  console.error(
    `${row.parser}: ${row.inputs} inputs, ${row.perSecond.toFixed(1)}/s, slowest ${Math.round(row.slowestMs)} ms` +
      `${findings.length ? `, ${findings.length} findings` : ''}`,
  );
}

console.log(`\n${machine()}; ${seconds} s per parser; seeds from ${firstSeed}; ${new Date().toISOString()}\n`);
console.log(
  '| parser | inputs | inputs/s | median ms | slowest ms (CPU ms) | slowest input | max memory MB | findings |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.parser} | ${r.inputs} | ${r.perSecond.toFixed(1)} | ${r.medianMs.toFixed(1)} | ` +
      `${Math.round(r.slowestMs)} (${Math.round(r.slowestCpuMs)}) | ${r.slowest} | ${Math.round(r.maxMb)} | ${r.findings.length} |`,
  );
for (const r of rows) for (const f of r.findings) console.log(`- ${r.parser}: ${f}`);
process.exit(rows.some((r) => r.findings.length) ? 1 : 0);
