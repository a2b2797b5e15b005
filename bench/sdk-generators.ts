// Generated SDKs (bench/history/2026-11-sdk-generators.md): do the SDK generators people use make a working client from the SDK document with no hand
// edits? Each generator runs on sdk/openapi.json; the README's whole flow, written against each generated client
// (bench/generators/flows/*.ts), must compile with `tsc --strict` (and with the repository's own compiler options)
// and run to the end against a started service (`startTestService`). Then the sizes: both documents and the
// official SDK (sdk/), raw and gzipped.
//   npx tsx bench/sdk-generators.ts [--keep]      (installs bench/generators' pinned generators on first run)
// Generators, from bench/generators/package-lock.json: openapi-typescript + openapi-fetch (default options),
// @hey-api/openapi-ts (default plugins), orval (`client: 'fetch'`, `baseUrl`: orval does not read `servers`).
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { routes } from '#shared/contract/routes.ts';
import { adminRoutes } from '#functions/admin/routes.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';
import { startTestService } from '#test/support/service.ts';

// The service's logs and metric lines stay out of the report (as in the tests).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';

const root = fileURLToPath(new URL('..', import.meta.url));
const gen = join(root, 'bench/generators');
const out = join(gen, 'out');
const bin = (name: string) => join(gen, 'node_modules/.bin', name);

/** A flow runs in a child process while the service runs in this one: never block this event loop on it. */
function runAsync(command: string, args: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ status: number; output: string }>((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: 300_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? ((error as { code?: number }).code ?? -1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000 });
  return { status: result.status ?? -1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

if (!existsSync(bin('orval')) || !existsSync(bin('openapi-ts')) || !existsSync(bin('openapi-typescript'))) {
  console.log('installing bench/generators (npm ci)…');
  const installed = run('npm', ['ci', '--no-audit', '--no-fund'], gen);
  if (installed.status !== 0) throw new Error(installed.output);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const sdkDocument = readFileSync(join(root, 'sdk/openapi.json'), 'utf8');
writeFileSync(join(out, 'openapi.json'), sdkDocument);
const pdfFile = join(out, 'invoice.pdf');
writeFileSync(pdfFile, await textPdf(['Invoice 42: total R$ 100,00']));

const svc = await startTestService();
interface Row {
  generator: string;
  generate: string;
  strict: number;
  repoOptions: number;
  ran: boolean;
  steps: number;
  failure?: string;
}
const rows: Row[] = [];
try {
  const generators: { name: string; flow: string; generate: () => { status: number; output: string }; how: string }[] =
    [
      {
        name: 'openapi-typescript + openapi-fetch',
        flow: 'openapi-fetch',
        how: 'openapi-typescript openapi.json -o openapi-typescript/schema.d.ts',
        generate: () => run(bin('openapi-typescript'), ['openapi.json', '-o', 'openapi-typescript/schema.d.ts'], out),
      },
      {
        name: '@hey-api/openapi-ts',
        flow: 'hey-api',
        how: 'openapi-ts -i openapi.json -o hey-api',
        generate: () => run(bin('openapi-ts'), ['-i', './openapi.json', '-o', 'hey-api'], out),
      },
      {
        name: 'orval (fetch)',
        flow: 'orval',
        how: "orval, { client: 'fetch', baseUrl }",
        generate: () => {
          writeFileSync(
            join(out, 'orval.config.mjs'),
            `export default { switchboard: { input: { target: './openapi.json' }, output: { target: './orval/switchboard.ts', client: 'fetch', baseUrl: ${JSON.stringify(svc.baseUrl)} } } };\n`,
          );
          return run(bin('orval'), ['--config', 'orval.config.mjs'], out);
        },
      },
    ];
  for (const g of generators) {
    const generated = g.generate();
    if (generated.status !== 0) {
      rows.push({
        generator: g.name,
        generate: g.how,
        strict: -1,
        repoOptions: -1,
        ran: false,
        steps: 0,
        failure: generated.output.slice(-2000),
      });
      continue;
    }
    const flow = join('flows', `${g.flow}.ts`);
    // `tsc --strict` as the issue says (default lib, DOM included), and the repository's own options (no DOM).
    const common = [
      '--noEmit',
      '--module',
      'nodenext',
      '--target',
      'es2023',
      '--allowImportingTsExtensions',
      '--types',
      'node',
    ];
    const strict = run(bin('tsc'), ['--strict', ...common, flow], gen);
    const repo = run(
      bin('tsc'),
      ['--strict', '--noUncheckedIndexedAccess', '--noImplicitOverride', '--lib', 'es2023', ...common, flow],
      gen,
    );
    const errors = (o: string) => (o.match(/error TS\d+/g) ?? []).length;
    const started = Date.now();
    const ran = await runAsync(process.execPath, ['--import', 'tsx', join(gen, flow)], root, {
      SWITCHBOARD_URL: svc.baseUrl,
      SWITCHBOARD_ADMIN_KEY: svc.adminKey,
      PDF_FILE: pdfFile,
    });
    const steps = new Set(ran.output.match(/^ok .*$/gm) ?? []).size;
    rows.push({
      generator: g.name,
      generate: g.how,
      strict: errors(strict.output),
      repoOptions: errors(repo.output),
      ran: ran.status === 0,
      steps,
      ...(ran.status === 0 && !errors(strict.output)
        ? {}
        : { failure: `${strict.output.slice(0, 1500)}\n${repo.output.slice(0, 1500)}\n${ran.output.slice(-1500)}` }),
    });
    console.log(`${g.name}: ${steps} steps in ${Date.now() - started} ms, exit ${ran.status}`);
  }
} finally {
  await svc.close();
}

const passed = rows.filter((r) => r.strict === 0 && r.ran).length;
console.log(
  '\n| generator | generated with | `tsc --strict` errors | errors, repo options (no DOM) | README flow live |',
);
console.log('|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.generator} | \`${r.generate}\` | ${r.strict} | ${r.repoOptions} | ${r.ran ? `ran to the end (${r.steps} steps)` : 'FAILED'} |`,
  );
console.log(
  `\n${passed} of ${rows.length} generated clients compile with tsc --strict and drive the README flow with no hand edits.`,
);
for (const r of rows) if (r.failure) console.log(`\n${r.generator}:\n${r.failure}`);

// Sizes: the documents as served (pretty JSON) and minified, the SDK's generated types, the SDK's runtime.
const gz = (bytes: string | Uint8Array) => gzipSync(bytes, { level: 9 }).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const full = buildOpenApiDocument({ adminRoutes, publicRoutes: routes }).document;
const sizes: [string, string][] = [
  ['`/openapi.json` (full document, pretty, as served)', JSON.stringify(full, null, 2)],
  ['`/openapi.json`, minified', JSON.stringify(full)],
  ['`sdk/openapi.json` (SDK document, pretty)', sdkDocument],
  [
    '`sdk/src/generated/schema.d.ts` (types only, no runtime)',
    readFileSync(join(root, 'sdk/src/generated/schema.d.ts'), 'utf8'),
  ],
];
const bundle = await build({
  stdin: {
    contents: `export * from './sdk/src/index.ts';\nexport * from './sdk/src/webhooks.ts';`,
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  write: false,
  logLevel: 'silent',
});
const runtime = bundle.outputFiles[0]!.contents;
// What an app that only calls the API ships: the client, tree-shaken (no webhook verification).
const app = await build({
  stdin: {
    contents: `import { createSwitchboard } from './sdk/src/index.ts';\nexport const sb = createSwitchboard({ baseUrl: 'http://127.0.0.1:3000' });`,
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  write: false,
  logLevel: 'silent',
});
const appBytes = app.outputFiles[0]!.contents;
console.log('\n| artifact | raw | gzip -9 |\n|---|---|---|');
for (const [name, text] of sizes) console.log(`| ${name} | ${kb(Buffer.byteLength(text))} | ${kb(gz(text))} |`);
console.log(
  `| the whole SDK runtime: both entries with openapi-fetch and standardwebhooks (esbuild --minify) | ${kb(runtime.length)} | ${kb(gz(runtime))} |`,
);
console.log(
  `| an app that calls the API only (\`createSwitchboard\`, tree-shaken) | ${kb(appBytes.length)} | ${kb(gz(appBytes))} |`,
);
const generatedBytes = (dir: string): number =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);
for (const [name, dir] of [
  ['hey-api', 'hey-api'],
  ['orval', 'orval'],
] as const)
  if (existsSync(join(out, dir)))
    console.log(`| ${name}'s generated source | ${kb(generatedBytes(join(out, dir)))} | |`);

if (!process.argv.includes('--keep')) rmSync(out, { recursive: true, force: true });
process.exit(passed === rows.length ? 0 : 1);
