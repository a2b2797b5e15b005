import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '#local/console.ts';
import { listenGateway } from '#test/support/gateway.ts';

/** The local server of the built console: its pages and assets, and nothing else of the folder or the disk. */
const dist = mkdtempSync(join(tmpdir(), 'sb-console-dist-'));
mkdirSync(join(dist, 'assets'));
writeFileSync(join(dist, 'index.html'), '<html><head></head><body>console</body></html>');
writeFileSync(join(dist, 'assets', 'main-abc123.js'), 'console.log(1)');
writeFileSync(join(dist, '.source-hash'), 'deadbeef');
writeFileSync(join(dist, '.shared-inputs.json'), '["shared/webhooks/event-types.ts"]');
writeFileSync(join(tmpdir(), 'sb-console-outside.txt'), 'outside');

const starting = listenGateway({
  handlers: { fallback: async () => ({ statusCode: 404, body: '' }) },
  localRoutes: consoleRoutes({ distDir: `${dist}/` }),
});
let base = '';
let close: () => Promise<void>;
beforeAll(async () => {
  ({ base, close } = await starting);
});
afterAll(async () => {
  await close();
  rmSync(dist, { recursive: true, force: true });
});

describe('local console files', () => {
  it('serves the page (revalidated) and hashed assets (cached for good)', async () => {
    const page = await fetch(`${base}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await page.text()).toContain('console');
    const asset = await fetch(`${base}/console/assets/main-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('does not serve the build’s own records (dot-files) nor anything outside the folder', async () => {
    for (const path of [
      '.source-hash',
      '.shared-inputs.json',
      'assets/../.source-hash',
      '%2e%2e/sb-console-outside.txt',
    ]) {
      const res = await fetch(`${base}/console/${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toMatch(/deadbeef|event-types|outside/);
    }
  });
});
