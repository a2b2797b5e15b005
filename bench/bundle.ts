/**
 * Bundle size and cold import time of every function, bundled exactly as deployed (infra/bundling.ts: the options
 * NodejsFunction gets), each imported in a fresh Node 22 process, against an empty module measured in the same run.
 *
 *   npx tsx bench/bundle.ts [--runs 20] [--json out.json] [--baseline <checkout>]
 *
 * With `--baseline`, another checkout of the project (its own node_modules; e.g. the previous commit extracted with
 * `git archive` and `npm ci`) is bundled by its own infra/build-functions.ts, and its bundles are imported in the
 * same run, interleaved with these: the report gives each function's import time against the baseline's, and each
 * Lambda asset's size on disk (the bundle with what ships beside it) in both.
 *
 * Targets (bench/history/2026-11-function-bundles.md): every public-endpoint function under 1 MB (1,000,000 bytes) and at most 80 ms above the empty
 * module. Every function gets a breakdown of what its bundle is made of, by package. On a loaded machine the deltas
 * are also given divided by the load inflation the calibration anchor shows (its quiet-machine delta is known).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildFunctions, coldStartEnvironment, projectRoot } from '#infra/bundling.ts';
import { functionSpecs } from '#infra/functions.ts';
import { median } from './lib/harness.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const RUNS = Number(option('runs') ?? 20);
const JSON_OUT = option('json');
const BASELINE = option('baseline');
const SIZE_LIMIT = 1_000_000;
const IMPORT_LIMIT_MS = 80;

const specs = functionSpecs();
const dir = mkdtempSync(join(tmpdir(), 'switchboard-bundles-'));

// 1. Bundle every function as deployed: <dir>/<fn>/index.mjs + map + shipped packages (the Lambda asset).
const analyses = await buildFunctions(
  specs.map((s) => s.fn),
  join(dir, 'functions'),
);
const bundles = specs.map((spec) => {
  const analysis = analyses.get(spec.fn)!;
  const byPackage = new Map<string, number>();
  for (const [file, bytes] of Object.entries(analysis.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const key = m ? m[1]! : file.split('/').slice(0, 2).join('/');
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytes);
  }
  return {
    fn: spec.fn,
    public: spec.routes.length > 0,
    file: join(analysis.dir, 'index.mjs'),
    bytes: analysis.bytes,
    lazyBytes: analysis.lazyBytes,
    shipped: analysis.shipped,
    top: [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 8),
    samples: [] as number[],
  };
});

/** Bytes on disk of a Lambda asset folder (what is zipped and uploaded). */
const assetBytes = (folder: string): number =>
  readdirSync(folder, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(folder, entry.name);
    return sum + (entry.isDirectory() ? assetBytes(path) : entry.isFile() ? statSync(path).size : 0);
  }, 0);

// 1b. The baseline's bundles, built by its own code from its own node_modules.
const baselineDir = join(dir, 'baseline');
if (BASELINE) {
  execFileSync(
    process.execPath,
    ['--import', 'tsx', join(BASELINE, 'infra', 'build-functions.ts'), baselineDir, ...specs.map((s) => s.fn)],
    { cwd: BASELINE, stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } },
  );
}
const baselineAnalysis = () =>
  JSON.parse(readFileSync(join(baselineDir, 'analysis.json'), 'utf8')) as Record<string, { bytes: number }>;
const baseline = new Map(
  BASELINE
    ? specs.map((s) => [
        s.fn,
        {
          file: join(baselineDir, s.fn, 'index.mjs'),
          asset: assetBytes(join(baselineDir, s.fn)),
          bytes: baselineAnalysis()[s.fn]!.bytes,
          samples: [] as number[],
        },
      ])
    : [],
);
const empty = join(dir, 'empty.mjs');
writeFileSync(empty, 'export const handler = async () => ({});\n');
// Calibration anchor: the DynamoDB clients imported unbundled from node_modules (the issue: ~70 ms above empty on a
// quiet machine). Its delta in this run tells how much the machine's load inflates every other delta.
const anchorDir = join(projectRoot, 'node_modules', '.cache', 'switchboard-bench');
mkdirSync(anchorDir, { recursive: true });
const anchor = join(anchorDir, 'unbundled-dynamodb.mjs');
writeFileSync(anchor, "import '@aws-sdk/client-dynamodb';\nimport '@aws-sdk/lib-dynamodb';\n");
const ANCHOR_QUIET_MS = 70;

// 2. Import each bundle in a fresh process, runs interleaved so machine noise spreads over all of them.
const env = coldStartEnvironment();
// The Lambda runtime provides `awslambda.streamifyResponse` before a streaming function loads (chat completions).
const probe =
  'globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } }; ' +
  'const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));';
const importMs = (file: string) =>
  Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', probe, file], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    }),
  );

const emptySamples: number[] = [];
const anchorSamples: number[] = [];
for (let run = 0; run < RUNS; run++) {
  emptySamples.push(importMs(empty));
  anchorSamples.push(importMs(anchor));
  for (const b of bundles) {
    b.samples.push(importMs(b.file));
    const base = baseline.get(b.fn);
    if (base) base.samples.push(importMs(base.file));
  }
}

const emptyMs = median(emptySamples);
const anchorDelta = median(anchorSamples) - emptyMs;
/** How much slower than a quiet machine this run was (1 = quiet), from the anchor. */
const inflation = Math.max(1, anchorDelta / ANCHOR_QUIET_MS);
const rows = bundles.map((b) => {
  const ms = median(b.samples);
  const delta = ms - emptyMs;
  const quietDelta = delta / inflation;
  const ok = !b.public || (b.bytes < SIZE_LIMIT && quietDelta <= IMPORT_LIMIT_MS);
  const base = baseline.get(b.fn);
  const baselineMs = base ? median(base.samples) : undefined;
  return {
    ...b,
    ms,
    delta,
    quietDelta,
    ok,
    asset: assetBytes(dirname(b.file)),
    baselineMs,
    baselineSamples: base?.samples,
    baselineBytes: base?.bytes,
    baselineAsset: base?.asset,
    // Each run imports this bundle and the baseline's one after the other: the median of those paired differences
    // cancels the machine's drift between runs.
    pairedDiffMs: base ? median(b.samples.map((x, i) => x - base.samples[i]!)) : undefined,
    // Byte-identical entry modules: any difference measured between them is the machine's noise.
    sameEntry: base ? readFileSync(b.file).equals(readFileSync(base.file)) : undefined,
  };
});

// 3. Report.
const kb = (n: number) => `${(n / 1000).toFixed(0)} kB`;
console.log(
  `# Bundles: ${new Date().toISOString()}, Node ${process.versions.node}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}, ${RUNS} fresh-process imports each (median)`,
);
console.log(
  `empty module: ${emptyMs.toFixed(1)} ms; anchor (unbundled DynamoDB clients): ${anchorDelta.toFixed(1)} ms above empty (${ANCHOR_QUIET_MS} ms on a quiet machine) → load inflation ×${inflation.toFixed(2)}\n`,
);
console.log(
  '| function | public | minified, loaded at cold start | + chunks loaded on first use | import (median) | above empty | above empty, quiet-machine equivalent | target (< 1 MB, ≤ 80 ms) |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---|');
for (const r of rows) {
  console.log(
    `| ${r.fn} | ${r.public ? 'yes' : 'no'} | ${kb(r.bytes)} | ${kb(r.lazyBytes)} | ${r.ms.toFixed(1)} ms | ${r.delta.toFixed(1)} ms | ${r.quietDelta.toFixed(1)} ms | ${r.public ? (r.ok ? 'met' : 'MISSED') : 'n/a'} |`,
  );
}
if (BASELINE) {
  console.log(`\nAgainst the baseline (${BASELINE}), imported in the same run, interleaved:\n`);
  console.log(
    '| function | loaded at cold start | baseline | same index.mjs | import (median) | baseline import (median) | paired difference (median) | asset on disk | baseline asset |',
  );
  console.log('|---|---:|---:|---|---:|---:|---:|---:|---:|');
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  for (const r of rows)
    console.log(
      `| ${r.fn} | ${kb(r.bytes)} | ${kb(r.baselineBytes!)} | ${r.sameEntry ? 'yes' : 'no'} | ${r.ms.toFixed(1)} ms | ${r.baselineMs!.toFixed(1)} ms | ${r.pairedDiffMs!.toFixed(1)} ms | ${mb(r.asset)} | ${mb(r.baselineAsset!)} |`,
    );
}
console.log('\nLargest contributors (bytes in the minified output loaded at a cold start):');
for (const r of rows)
  console.log(
    `- ${r.fn}: ${r.top.map(([k, v]) => `${k} ${kb(v)}`).join(', ')}${r.shipped.length ? ` (+ shipped beside it: ${r.shipped.join(', ')})` : ''}`,
  );
if (JSON_OUT) {
  writeFileSync(
    JSON_OUT,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        runs: RUNS,
        load: loadavg(),
        emptyMs,
        anchorDelta,
        inflation,
        emptySamples,
        anchorSamples,
        rows: rows.map(({ file: _file, ...r }) => r),
      },
      null,
      2,
    ),
  );
}
rmSync(dir, { recursive: true, force: true });
process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
