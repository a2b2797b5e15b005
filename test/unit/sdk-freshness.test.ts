import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#shared/contract/routes.ts';
import { adminRoutes } from '#functions/admin/routes.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';

/**
 * The official client is regenerated whenever the API changes: `sdk/openapi.json` is the SDK document the code
 * builds now, and the generated files are what the generators make of it (openapi-typescript's own `--check`, and
 * the operations table with the document's SHA-256). Fix with `npm run sdk:generate`.
 */
const sdk = fileURLToPath(new URL('../../sdk/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sdk-freshness-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function check(dir?: string) {
  const run = spawnSync(process.execPath, [join(sdk, 'scripts/generate.mjs'), '--check'], {
    encoding: 'utf8',
    env: { ...process.env, ...(dir ? { SDK_DIR: dir } : {}) },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the SDK is generated from the current document', () => {
  it('sdk/openapi.json is the SDK document the code builds', () => {
    const { document } = buildOpenApiDocument({ adminRoutes, publicRoutes: routes, audience: 'sdk' });
    const committed = readFileSync(join(sdk, 'openapi.json'), 'utf8');
    expect(committed === `${JSON.stringify(document, null, 2)}\n`, 'run `npm run sdk:generate`').toBe(true);
  });

  it('src/generated is what the generators make of sdk/openapi.json', () => {
    const result = check();
    expect(result.output).toContain('up to date');
    expect(result.status).toBe(0);
  }, 60_000);

  it('fails when the document changed and the client was not regenerated', () => {
    cpSync(join(sdk, 'src/generated'), join(scratch, 'src/generated'), { recursive: true });
    const doc = JSON.parse(readFileSync(join(sdk, 'openapi.json'), 'utf8'));
    doc.paths['/admin/v1/projects'].post.summary = 'Make a project';
    writeFileSync(join(scratch, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
    const result = check(scratch);
    expect(result.status).toBe(1);
    expect(result.output).toContain('npm run sdk:generate');
  }, 60_000);
});
