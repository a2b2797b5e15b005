import { describe, expect, it } from 'vitest';
import { verdict } from '../../scripts/check-runtime-deps.mjs';

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
