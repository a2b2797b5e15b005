import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#infra/bundling.ts';

const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string }>;
};

/** Every source file of the project (not node_modules, not build output). */
function sources(): string[] {
  const files: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !['node_modules', 'dist', '.data'].includes(entry.name)) visit(path);
      else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name)) files.push(path);
    }
  };
  for (const dir of ['shared', 'functions', 'local', 'infra', 'scripts', 'bench', 'console', 'test'])
    visit(join(projectRoot, dir));
  return files;
}

describe('dependencies', () => {
  it('every runtime dependency is used by the code: imported, or resolved by name (data packages)', () => {
    const text = sources()
      .filter((f) => !f.endsWith('dependencies.test.ts'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = Object.keys(pkg.dependencies).filter((name) => {
      const quoted = new RegExp(`['"\`]${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/[^'"\`]*)?['"\`]`);
      // `@tesseract.js-data/${code}`: a scope resolved with the package name built at run time.
      const scoped = name.startsWith('@') && text.includes(`${name.split('/')[0]}/\${`);
      return !quoted.test(text) && !scoped;
    });
    expect(unused).toEqual([]);
  });

  it('one version of each AWS SDK package: none nested under another package', () => {
    const nested = Object.keys(lock.packages).filter((path) => /node_modules\/.+\/node_modules\/@aws-sdk\//.test(path));
    expect(nested).toEqual([]);
  });
});
