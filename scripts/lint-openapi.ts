// Lints both OpenAPI documents, built in-process from the code, with the linters customers' tools run:
//   Redocly CLI, `recommended` (redocly.yaml): 0 errors and 0 warnings on each (the retired 410 route, the one
//     accepted finding, is in .redocly.lint-ignore.yaml);
//   Spectral, `spectral:oas` (.spectral.yaml): 0 errors on each (warnings are printed).
// Offline: the linters' telemetry and update checks are switched off, and neither fetches a ruleset.
//   npm run lint:openapi          (exit 1 on a failure; .ci/run runs it, test/unit/openapi-lint.test.ts too)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes } from '#shared/contract/routes.ts';
import { adminRoutes } from '#functions/admin/routes.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Where the documents are written for the linters; the ignore file names the full one by this path. */
const OUT = join(root, 'node_modules/.cache/switchboard-openapi');

export interface LintResult {
  document: 'full' | 'sdk';
  redocly: { errors: number; warnings: number; ignored: number; output: string };
  spectral: { errors: number; warnings: number; output: string };
}

const OFFLINE = {
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_UPDATE_NOTIFIER: '1',
  DO_NOT_TRACK: '1',
};

function run(bin: string, args: string[]): { status: number | null; output: string; stderr: string } {
  const result = spawnSync(join(root, 'node_modules/.bin', bin), args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...OFFLINE },
    timeout: 180_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, output: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** Builds both documents and runs both linters on each. */
export function lintOpenApi(): LintResult[] {
  mkdirSync(OUT, { recursive: true });
  const results: LintResult[] = [];
  for (const audience of ['full', 'sdk'] as const) {
    const { document } = buildOpenApiDocument({ adminRoutes, publicRoutes: routes, audience });
    const file = join(OUT, audience === 'full' ? 'openapi.json' : 'openapi.sdk.json');
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    const target = relative(root, file);

    const redocly = run('redocly', ['lint', target, '--config', 'redocly.yaml', '--format', 'json']);
    if (!redocly.output.includes('{')) throw new Error(`redocly lint gave no report:\n${redocly.stderr}`);
    const report = JSON.parse(redocly.output.slice(redocly.output.indexOf('{'))) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: { ruleId: string; message: string; severity: string; location: { pointer: string }[] }[];
    };
    const spectral = run('spectral', ['lint', target, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet']);
    if (!spectral.output.includes('[')) throw new Error(`spectral lint gave no report:\n${spectral.stderr}`);
    const findings = JSON.parse(spectral.output.slice(spectral.output.indexOf('['))) as {
      code: string;
      message: string;
      severity: number;
      path: string[];
    }[];
    results.push({
      document: audience,
      redocly: {
        ...report.totals,
        output: report.problems
          .map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`)
          .join('\n'),
      },
      spectral: {
        errors: findings.filter((f) => f.severity === 0).length,
        warnings: findings.filter((f) => f.severity === 1).length,
        output: findings
          .map((f) => `${['error', 'warning', 'info', 'hint'][f.severity]} ${f.code} ${f.path.join('.')}: ${f.message}`)
          .join('\n'),
      },
    });
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let failed = false;
  for (const r of lintOpenApi()) {
    console.log(
      `${r.document}: Redocly recommended ${r.redocly.errors} errors, ${r.redocly.warnings} warnings (${r.redocly.ignored} ignored); ` +
        `Spectral spectral:oas ${r.spectral.errors} errors, ${r.spectral.warnings} warnings`,
    );
    for (const text of [r.redocly.output, r.spectral.output]) if (text) console.log(text.replace(/^/gm, '  '));
    failed ||= r.redocly.errors + r.redocly.warnings + r.spectral.errors > 0;
  }
  process.exit(failed ? 1 : 0);
}
