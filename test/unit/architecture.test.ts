import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The floors of `shared/`: the areas (everything but `shared/http` and `shared/adapters`) hold ports, domain rules and
 * use cases. They never reach up to the HTTP edge, and never down to an adapter or the AWS SDK: the functions' wiring
 * builds adapters and hands them in as ports.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EDGES = ['shared/http/', 'shared/adapters/'];

interface Import {
  file: string;
  specifier: string;
  /** Repository-relative path for `./`, `../` and `#shared/` specifiers; undefined for packages. */
  target?: string;
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The module specifiers a TypeScript source imports: `import … from`, `import type … from`, `export … from`,
 * side-effect `import '…'` and `import('…')`, over several lines too. Comments are dropped first, so an example in
 * a doc comment is not an import. (TypeScript 7 has no JavaScript API to ask.)
 */
function specifiersIn(source: string): string[] {
  const code = source.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/^\s*\/\/.*$/gm, '');
  const patterns = [
    /^\s*(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1]!));
}

/** Every import of a file, with its target resolved for `./`, `../` and `#shared/` specifiers. */
function importsOf(file: string): Import[] {
  return specifiersIn(readFileSync(join(ROOT, file), 'utf8')).map((specifier) => {
    let target: string | undefined;
    if (specifier.startsWith('.'))
      target = relative(ROOT, resolve(ROOT, dirname(file), specifier))
        .split(sep)
        .join('/');
    else if (specifier.startsWith('#shared/')) target = `shared/${specifier.slice('#shared/'.length)}`;
    return { file, specifier, ...(target ? { target } : {}) };
  });
}

const areaFiles = tsFiles('shared').filter((file) => !EDGES.some((edge) => file.startsWith(edge)));
const areaImports = areaFiles.flatMap(importsOf);
const offenders = (rule: (i: Import) => boolean) => [...new Set(areaImports.filter(rule).map((i) => i.file))].sort();

describe('architecture: the areas under shared/ depend on neither the HTTP edge nor the adapters', () => {
  it('finds every form of import, and none in comments', () => {
    const source = [
      "import middy, { type MiddlewareObj } from '@middy/core';",
      'import {',
      '  HttpError,',
      '  type ErrorDetail,',
      "} from '../http/errors.ts';",
      "import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';",
      "export { json } from '../http/types.ts';",
      "export type { Logger } from '../logging/logger.ts';",
      "import '../adapters/register.ts';",
      "const sdk = await import('@aws-sdk/client-s3');",
      '/**',
      " * import { notFound } from '../http/errors.ts';",
      ' */',
      "// import { x } from '../http/router.ts';",
      "const text = 'nothing from here';",
    ].join('\n');
    expect(specifiersIn(source).sort()).toEqual(
      [
        '#shared/adapters/dynamodb/table.ts',
        '../adapters/register.ts',
        '../http/errors.ts',
        '../http/types.ts',
        '../logging/logger.ts',
        '@aws-sdk/client-s3',
        '@middy/core',
      ].sort(),
    );
  });

  it('reads the imports it checks, relative and aliased alike', () => {
    expect(areaFiles.length).toBeGreaterThan(50);
    const completion = importsOf('shared/completion/complete-text.ts');
    expect(completion).toContainEqual(
      expect.objectContaining({ specifier: './errors.ts', target: 'shared/completion/errors.ts' }),
    );
    expect(completion).toContainEqual(
      expect.objectContaining({ specifier: '../bots/bot.ts', target: 'shared/bots/bot.ts' }),
    );
    expect(importsOf('test/unit/http/domain-errors.test.ts')).toContainEqual(
      expect.objectContaining({ specifier: '#shared/http/domain-errors.ts', target: 'shared/http/domain-errors.ts' }),
    );
  });

  it('no area imports shared/http or middy: use cases throw domain errors, the edge maps them', () => {
    const found = offenders((i) => i.target?.startsWith('shared/http/') === true || i.specifier.startsWith('@middy/'));
    expect(found).toEqual([]);
  });

  it('shared/http imports no adapter and no AWS SDK either: its presets take ports', () => {
    const httpImports = tsFiles('shared/http').flatMap(importsOf);
    const found = httpImports.filter(
      (i) => i.target?.startsWith('shared/adapters/') === true || i.specifier.startsWith('@aws-sdk/'),
    );
    expect(found.map((i) => i.file)).toEqual([]);
  });

  it('no area imports shared/adapters or the AWS SDK: the functions build adapters (functions/<fn>, functions/_wiring)', () => {
    const found = offenders(
      (i) => i.target?.startsWith('shared/adapters/') === true || i.specifier.startsWith('@aws-sdk/'),
    );
    expect(found).toEqual([]);
  });
});
