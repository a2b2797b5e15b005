import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#infra/bundling.ts';
import { copyleftPackages, installedLicence, permitted, verdict } from '../../scripts/check-runtime-deps.mjs';

const clean = { metadata: { vulnerabilities: { high: 0, critical: 0 } }, vulnerabilities: {} };

describe('the runtime dependency check', () => {
  it('says NOT CHECKED, and never "no advisory", when the registry did not answer', () => {
    const result = verdict({ audit: undefined, outdated: undefined, allow: {} });
    expect(result.summary).toBe(
      'runtime dependencies: advisories NOT CHECKED (no answer from the registry); release lag NOT CHECKED (no answer from the registry)',
    );
    expect(result.summary).not.toMatch(/no advisory|no release lag/);
    expect(result.failures).toEqual([]);
    expect(result.warnings).toHaveLength(2);
  });

  it('claims each check only when it ran', () => {
    expect(verdict({ audit: clean, outdated: undefined, allow: {} }).summary).toBe(
      'runtime dependencies: no high or critical advisory; release lag NOT CHECKED (no answer from the registry)',
    );
    expect(verdict({ audit: undefined, outdated: {}, allow: {} }).summary).toBe(
      'runtime dependencies: advisories NOT CHECKED (no answer from the registry); no release lag beyond the allow-list',
    );
  });

  it('fails on a high advisory, and on a minor release behind unless allowed', () => {
    const audit = {
      metadata: { vulnerabilities: { high: 1, critical: 0 } },
      vulnerabilities: { busboy: { severity: 'high' } },
    };
    const outdated = {
      zod: { current: '4.1.0', latest: '4.2.0' },
      '@aws-sdk/client-s3': { current: '3.1.0', latest: '3.9.0' },
    };
    const result = verdict({ audit, outdated, allow: { '@aws-sdk/*': { lag: 'minor' } } });
    expect(result.failures).toEqual([
      'npm audit: 1 high and 0 critical advisories in runtime dependencies: busboy (high)',
      'zod: 4.1.0 is a minor release behind 4.2.0 (allow it in scripts/runtime-deps-allow.json with the reason, or upgrade)',
    ]);
    expect(result.summary).toBe('runtime dependencies: high or critical advisories found; releases behind');
  });
});

describe('the licence check', () => {
  it('finds no AGPL, GPL or SSPL package in the lock file, development tools included', () => {
    const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8'));
    const { checked, copyleft } = copyleftPackages(lock, installedLicence(projectRoot));
    expect(copyleft).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });

  it('reports a copyleft package, a dev one too, and one that declares no licence', () => {
    const lock = {
      packages: {
        '': { license: 'Apache-2.0' },
        'node_modules/a': { license: 'MIT' },
        'node_modules/agpl-tool': { license: 'AGPL-3.0-or-later', dev: true },
        'node_modules/x/node_modules/gpl': { license: '(MIT AND GPL-2.0-only)' },
        'node_modules/old-style': {},
        'node_modules/unknown': {},
        'node_modules/@me/sdk': { link: true },
      },
    };
    const installed: Record<string, string> = { 'node_modules/old-style': 'MIT' };
    expect(copyleftPackages(lock, (path: string) => installed[path])).toEqual({
      checked: 5,
      copyleft: [
        'node_modules/agpl-tool: AGPL-3.0-or-later',
        'node_modules/x/node_modules/gpl: (MIT AND GPL-2.0-only)',
        'node_modules/unknown: no licence declared (lock file or package.json): check it by hand',
      ],
    });
  });

  it('reads SPDX expressions: a choice passes when one side does, a conjunction when both do', () => {
    for (const ok of ['MIT', '(MIT OR GPL-3.0-or-later)', '(MIT OR EUPL-1.1+)', 'Public Domain', 'LGPL-3.0-only'])
      expect(permitted(ok), ok).toBe(true);
    for (const no of ['AGPL-3.0-or-later', 'GPL-2.0+', 'GPL', 'SSPL-1.0', '(MIT AND GPL-2.0)', 'GPL-2.0 WITH X'])
      expect(permitted(no), no).toBe(false);
    expect(() => permitted('(MIT OR')).toThrow(/licence expression/);
  });
});
