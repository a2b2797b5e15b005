import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The floors of `shared/` (docs/architecture.md), bottom up:
 * - `contract/`: what infra, the runner and the functions all read (routes, queues, buckets, the table's key book,
 *   access, error and metric names). Imports nothing above it.
 * - `kernel/`: no product words (config, the domain-error base, ids, logger, metrics, validation, secret box, token
 *   hashing, the destination policy, AWS clients). Imports only itself and the contract.
 * - `events/`: the event vocabulary (envelope, types, catalog, publisher). Imports kernel and contract.
 * - the areas (`shared/<area>/`): use cases and domain at the area's root, `adapters/` (one technology each) and
 *   `api/` (its wire) beside them. Another area is reached only through its faces: `index.ts` (domain, ports, use
 *   cases), `api/index.ts` (its wire) and `adapters/index.ts`; no cycle between areas.
 * - `http/`: generic HTTP (middleware, router, streaming, the domain-error table, presets, the worker preset). No area.
 * - `openapi/`: the API document and the admin route table, over every area's `api/`. No area imports it.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FLOORS = new Set(['kernel', 'contract', 'events', 'http', 'openapi']);

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
    else if (specifier.startsWith('#')) target = specifier.slice(1);
    return { file, specifier, ...(target ? { target } : {}) };
  });
}

/** Where a file under `shared/` sits: its top folder, whether that is an area, and its layer inside the area. */
function placeOf(file: string) {
  const [, top = '', layer] = file.split('/');
  return {
    top,
    isArea: !FLOORS.has(top),
    layer: layer === 'api' ? 'api' : layer === 'adapters' ? 'adapters' : 'core',
  } as const;
}

const sharedImports = tsFiles('shared').flatMap(importsOf);
const internal = sharedImports.filter((i) => i.target !== undefined);
const list = (imports: Import[]) => [...new Set(imports.map((i) => `${i.file} -> ${i.specifier}`))].sort();
const faces = (area: string) => [
  `shared/${area}/index.ts`,
  `shared/${area}/api/index.ts`,
  `shared/${area}/adapters/index.ts`,
];

/** The area dependency graph (area → areas it imports), and its cycles. */
function areaCycles(): string[] {
  const graph = new Map<string, Set<string>>();
  for (const i of internal) {
    const from = placeOf(i.file);
    const to = placeOf(i.target!);
    if (!i.target!.startsWith('shared/') || from.top === to.top || !from.isArea || !to.isArea) continue;
    graph.set(from.top, (graph.get(from.top) ?? new Set()).add(to.top));
  }
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    const at = path.indexOf(node);
    if (at !== -1) return void cycles.push([...path.slice(at), node].join(' -> '));
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

describe('architecture: vertical slices over a kernel and a contract, no arrow running back up', () => {
  it('finds every form of import, and none in comments', () => {
    const source = [
      "import middy, { type MiddlewareObj } from '@middy/core';",
      'import {',
      '  HttpError,',
      '  type ErrorDetail,',
      "} from '../http/errors.ts';",
      "import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';",
      "export { json } from '../http/types.ts';",
      "export type { Logger } from '../kernel/logger.ts';",
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
        '#shared/kernel/aws/dynamo-table.ts',
        '../adapters/register.ts',
        '../http/errors.ts',
        '../http/types.ts',
        '../kernel/logger.ts',
        '@aws-sdk/client-s3',
        '@middy/core',
      ].sort(),
    );
  });

  it('reads the imports it checks, relative and aliased alike', () => {
    expect(tsFiles('shared').length).toBeGreaterThan(150);
    expect(importsOf('shared/completion/complete-text.ts')).toContainEqual(
      expect.objectContaining({ specifier: './errors.ts', target: 'shared/completion/errors.ts' }),
    );
    expect(importsOf('shared/completion/complete-text.ts')).toContainEqual(
      expect.objectContaining({ target: 'shared/bots/index.ts' }),
    );
    expect(importsOf('test/unit/http/domain-errors.test.ts')).toContainEqual(
      expect.objectContaining({ specifier: '#shared/http/domain-errors.ts', target: 'shared/http/domain-errors.ts' }),
    );
    // The checks below would catch a violation: a made-up import of an area's adapter from another area's use case.
    expect(placeOf('shared/knowledge/adapters/s3-knowledge-object-store.ts')).toEqual({
      top: 'knowledge',
      isArea: true,
      layer: 'adapters',
    });
  });

  it('shared/ never imports functions/, local/, infra/ or test/', () => {
    expect(list(internal.filter((i) => !i.target!.startsWith('shared/')))).toEqual([]);
  });

  it('contract/ imports only itself and kernel/; kernel/ only itself and contract/', () => {
    const found = internal.filter((i) => {
      const from = placeOf(i.file).top;
      const to = placeOf(i.target!).top;
      return (from === 'contract' || from === 'kernel') && to !== 'contract' && to !== 'kernel';
    });
    expect(list(found)).toEqual([]);
  });

  it('events/ imports only kernel/ and contract/', () => {
    const found = internal.filter(
      (i) => placeOf(i.file).top === 'events' && !['events', 'kernel', 'contract'].includes(placeOf(i.target!).top),
    );
    expect(list(found)).toEqual([]);
  });

  it('shared/http imports no area, no adapter and no AWS SDK: its presets take ports', () => {
    const found = sharedImports.filter(
      (i) =>
        placeOf(i.file).top === 'http' &&
        (i.specifier.startsWith('@aws-sdk/') || (i.target !== undefined && placeOf(i.target).isArea)),
    );
    expect(list(found)).toEqual([]);
  });

  it('no area imports shared/openapi (the document is built over the areas, never the other way round)', () => {
    const found = internal.filter((i) => placeOf(i.file).isArea && placeOf(i.target!).top === 'openapi');
    expect(list(found)).toEqual([]);
  });

  it("an area's use cases and domain never import its adapters/ or api/, shared/http, middy or the AWS SDK", () => {
    const found = sharedImports.filter((i) => {
      const from = placeOf(i.file);
      if (!from.isArea || from.layer !== 'core') return false;
      if (i.specifier.startsWith('@aws-sdk/') || i.specifier.startsWith('@middy/')) return true;
      if (i.target === undefined) return false;
      const to = placeOf(i.target);
      return to.top === 'http' || (to.isArea && to.layer !== 'core');
    });
    expect(list(found)).toEqual([]);
  });

  it('adapters never import shared/http (they speak one technology, not the API)', () => {
    const found = internal.filter(
      (i) => placeOf(i.file).isArea && placeOf(i.file).layer === 'adapters' && placeOf(i.target!).top === 'http',
    );
    expect(list(found)).toEqual([]);
  });

  it('across areas only through their faces (index.ts, api/index.ts, adapters/index.ts)', () => {
    const found = internal.filter((i) => {
      const from = placeOf(i.file);
      const to = placeOf(i.target!);
      return from.isArea && to.isArea && from.top !== to.top && !faces(to.top).includes(i.target!);
    });
    expect(list(found)).toEqual([]);
  });

  it('no cycle between areas', () => {
    expect(areaCycles()).toEqual([]);
  });

  it('every area has its face', () => {
    const areas = readdirSync(join(ROOT, 'shared'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !FLOORS.has(e.name))
      .map((e) => e.name);
    expect(areas.length).toBeGreaterThan(10);
    const missing = areas.filter((area) => !tsFiles(`shared/${area}`).includes(`shared/${area}/index.ts`));
    expect(missing).toEqual([]);
  });

  it('the functions reach shared/ by its alias, never by climbing out of functions/', () => {
    const found = tsFiles('functions')
      .flatMap(importsOf)
      .filter((i) => i.specifier.startsWith('../../shared/') || posix.normalize(i.specifier).startsWith('../../../'));
    expect(list(found)).toEqual([]);
  });
});
