/**
 * Bundle size and cold import time of every function, bundled exactly as deployed (infra/bundling.ts: the options
 * NodejsFunction gets), each imported in a fresh Node 22 process, against an empty module measured in the same run.
 *
 *   npx tsx bench/bundle.ts [--runs 20] [--json out.json] [--base <git ref>]
 *
 * With `--base`, the same functions are also bundled from that commit's sources (extracted with `git archive`, built
 * with that commit's infra/bundling.ts and this node_modules) and imported in the same interleaved runs, so the
 * report gives each function's change against it with the machine's load shared.
 *
 * Targets (issue 8): every public-endpoint function under 1 MB (1,000,000 bytes) and at most 80 ms above the empty
 * module. Every function gets a breakdown of what its bundle is made of, by package. On a loaded machine the deltas
 * are also given divided by the load inflation the calibration anchor shows (its quiet-machine delta is known).
 */
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFunctions, coldStartEnvironment, projectRoot } from '#infra/bundling.ts';
import { functionSpecs } from '#infra/functions.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const RUNS = Number(option('runs') ?? 20);
const JSON_OUT = option('json');
const BASE_REF = option('base');
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
// The base commit's bundles, built by its own infra/bundling.ts in a process of its own.
const baseFiles = new Map<string, string>();
if (BASE_REF) {
  const baseRoot = join(dir, 'base-src');
  mkdirSync(baseRoot);
  execSync(`git archive ${JSON.stringify(BASE_REF)} | tar -x -C ${JSON.stringify(baseRoot)}`, { cwd: projectRoot });
  symlinkSync(join(projectRoot, 'node_modules'), join(baseRoot, 'node_modules'));
  const baseOut = join(dir, 'base-functions');
  const build = `const { buildFunctions } = await import(${JSON.stringify(join(baseRoot, 'infra', 'bundling.ts'))}); await buildFunctions(${JSON.stringify(specs.map((s) => s.fn))}, ${JSON.stringify(baseOut)});`;
  execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', build], {
    cwd: baseRoot,
    stdio: 'inherit',
  });
  for (const spec of specs) {
    const file = join(baseOut, spec.fn, 'index.mjs');
    if (existsSync(file)) baseFiles.set(spec.fn, file);
  }
}
const baseSamples = new Map<string, number[]>([...baseFiles.keys()].map((fn) => [fn, []]));

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
    const base = baseFiles.get(b.fn);
    if (base) baseSamples.get(b.fn)!.push(importMs(base));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const emptyMs = median(emptySamples);
const anchorDelta = median(anchorSamples) - emptyMs;
/** How much slower than a quiet machine this run was (1 = quiet), from the anchor. */
const inflation = Math.max(1, anchorDelta / ANCHOR_QUIET_MS);
const rows = bundles.map((b) => {
  const ms = median(b.samples);
  const delta = ms - emptyMs;
  const quietDelta = delta / inflation;
  const ok = !b.public || (b.bytes < SIZE_LIMIT && quietDelta <= IMPORT_LIMIT_MS);
  return { ...b, ms, delta, quietDelta, ok };
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
if (BASE_REF) {
  console.log(`\nAgainst ${BASE_REF} (its bundles imported in the same runs, interleaved):\n`);
  console.log('| function | base import (median) | this tree (median) | change |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows) {
    const base = baseSamples.get(r.fn);
    if (!base?.length) {
      console.log(`| ${r.fn} | (not in base) | ${r.ms.toFixed(1)} ms | |`);
      continue;
    }
    const baseMs = median(base);
    const change = r.ms - baseMs;
    console.log(
      `| ${r.fn} | ${baseMs.toFixed(1)} ms | ${r.ms.toFixed(1)} ms | ${change >= 0 ? '+' : ''}${change.toFixed(1)} ms |`,
    );
  }
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
