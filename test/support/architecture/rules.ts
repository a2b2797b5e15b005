import type { Import, Repo } from './repo.ts';
import { withoutComments } from './repo.ts';
import { selfExplaining, sizes } from './area-quality.ts';
import { areasOf, type Folder, isConverted, KNOWN_CYCLES, type Layer, NOT_YET_CONVERTED, placeOf } from './places.ts';

export { areasOf, isConverted, KNOWN_CYCLES, NOT_YET_CONVERTED, placeOf } from './places.ts';
export { selfExplaining, sizes, topLevelFunctions } from './area-quality.ts';

/**
 * The rules docs/architecture.md states, each a function of the repository that returns its violations (empty when
 * the rule holds), so each can be shown failing on a made-up repository (test/unit/architecture-rules.test.ts).
 */

const describe = (i: Import, why?: string) => `${i.file} -> ${i.specifier}${why ? ` (${why})` : ''}`;
const sorted = (items: Iterable<string>) => [...new Set(items)].sort();
const local = (repo: Repo) => repo.imports.filter((i) => i.target !== undefined) as Required<Import>[];

/**
 * Floors between the top folders, imports pointing down only: `local/` → `functions/` → `shared/`; `infra/` reads
 * only the contract; `console/` (the browser app) only `shared/`; `bench/`, `scripts/` and `test/` sit on top.
 * Nothing imports `test/`, `bench/` or `scripts/` but themselves (and each other).
 */
const FOLDER_MAY_IMPORT: Record<Folder, readonly string[]> = {
  shared: ['shared/'],
  functions: ['functions/', 'shared/'],
  infra: ['infra/', 'shared/contract/'],
  local: ['local/', 'functions/', 'shared/', 'infra/'],
  console: ['console/', 'shared/'],
  scripts: ['scripts/', 'shared/', 'functions/', 'local/', 'infra/', 'test/'],
  bench: ['bench/', 'shared/', 'functions/', 'local/', 'infra/', 'test/', 'scripts/'],
  test: ['test/', 'shared/', 'functions/', 'local/', 'infra/', 'bench/', 'scripts/', 'console/'],
  other: [],
};

export function folderFloors(repo: Repo): string[] {
  return sorted(
    local(repo)
      .filter((i) => !FOLDER_MAY_IMPORT[placeOf(i.file).folder].some((prefix) => i.target.startsWith(prefix)))
      .map((i) => describe(i, `${placeOf(i.file).folder}/ may not import ${placeOf(i.target).folder}/`)),
  );
}

/**
 * The floors of `shared/`, bottom up: `contract/` and `kernel/` (each other only), `events/` (those two), `http/`
 * (those three: no area, no AWS SDK), the areas, `openapi/` (over the areas: no area imports it, and of the
 * folders outside `shared/` only the tools that build the document do: local/, scripts/, bench/, test/).
 */
export function sharedFloors(repo: Repo): string[] {
  const may: Record<string, string[]> = {
    contract: ['contract', 'kernel'],
    kernel: ['kernel', 'contract'],
    events: ['events', 'kernel', 'contract'],
    http: ['http', 'kernel', 'contract', 'events'],
  };
  const found: string[] = [];
  for (const i of repo.imports) {
    const from = placeOf(i.file);
    if (from.top === 'http' && from.folder === 'shared' && i.specifier.startsWith('@aws-sdk/'))
      found.push(describe(i, 'http/ speaks no AWS'));
    if (i.target === undefined) continue;
    const to = placeOf(i.target);
    if (to.folder !== 'shared') continue;
    if (from.folder === 'shared' && from.top && may[from.top] && !may[from.top]!.includes(to.top ?? ''))
      found.push(describe(i, `${from.top}/ imports only ${may[from.top]!.join(', ')}`));
    if (to.top === 'openapi' && !['local', 'scripts', 'bench', 'test'].includes(from.folder) && from.top !== 'openapi')
      found.push(describe(i, 'the document is built over the areas, never under them'));
  }
  return sorted(found);
}

/**
 * Inside an area, imports point down its layers: the face (`index.ts`) over the wiring (`wiring.ts`), which builds
 * from `settings.ts`, `adapters/` and `api/` (side by side, never importing each other), which stand on the use cases
 * and domain (`core`). The core never imports the area's upper layers, `shared/http`, middy or the AWS SDK (it takes
 * ports), and an adapter never `shared/http`. No file of an area imports its own face.
 */
const RANK: Record<Layer, number> = { core: 0, settings: 1, adapters: 1, api: 1, wiring: 2, face: 3 };

export function areaLayers(repo: Repo): string[] {
  const found: string[] = [];
  for (const i of repo.imports) {
    const from = placeOf(i.file);
    if (!from.isArea || !from.layer) continue;
    if (from.layer === 'core' && (i.specifier.startsWith('@aws-sdk/') || i.specifier.startsWith('@middy/')))
      found.push(describe(i, 'a use case takes ports, not clients'));
    if (i.target === undefined) continue;
    const to = placeOf(i.target);
    if (to.folder === 'shared' && to.top === 'http' && (from.layer === 'core' || from.layer === 'adapters'))
      found.push(describe(i, `${from.layer === 'core' ? 'use cases' : 'adapters'} know no HTTP`));
    if (to.top !== from.top || !to.layer) continue;
    const down = RANK[to.layer] < RANK[from.layer] || to.layer === from.layer;
    if (!down || to.layer === 'face') found.push(describe(i, `${from.layer} may not import ${to.layer}`));
  }
  return sorted(found);
}

/** Tests that may reach into `area`: its mirror folders `test/unit/<area>/` and `test/integration/<area>/`. */
const mirrorOf = (file: string, area: string) =>
  file.startsWith(`test/unit/${area}/`) || file.startsWith(`test/integration/${area}/`);

/**
 * One face per area: from anywhere outside an area (functions/, local/, console/, bench/, scripts/, other areas,
 * tests other than the area's own mirror folders), only `shared/<area>/index.ts`. An area not converted yet keeps
 * the old rule: other areas go through `index.ts` or `api/index.ts` (`events/`, a floor until converted: any file);
 * `shared/openapi` and the folders outside `shared/` are not checked.
 */
export function faces(repo: Repo, notYet: readonly string[] = NOT_YET_CONVERTED): string[] {
  const found: string[] = [];
  for (const i of local(repo)) {
    const to = placeOf(i.target);
    const from = placeOf(i.file);
    if (!to.isArea || !to.top || (from.folder === 'shared' && from.top === to.top)) continue;
    const area = to.top;
    const face = `shared/${area}/index.ts`;
    if (isConverted(area, notYet)) {
      if (i.target !== face && !mirrorOf(i.file, area)) found.push(describe(i, `only ${face}`));
    } else if (from.isArea && area !== 'events' && i.target !== face && i.target !== `shared/${area}/api/index.ts`)
      found.push(describe(i, `only ${face} or its api/index.ts (not converted yet)`));
  }
  return sorted(found);
}

/** The names a face exports (`export { a, type B } from`, `export function`, `export const`...); `*` for `export *`. */
export function exportsOf(source: string): string[] {
  const code = withoutComments(source);
  const names: string[] = [];
  for (const m of code.matchAll(/^\s*export\s+(?:type\s+)?\{([^}]*)\}/gm))
    for (const part of m[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name) names.push(name);
    }
  for (const m of code.matchAll(/^\s*export\s+\*/gm)) names.push(m[0] && '*');
  for (const m of code.matchAll(
    /^\s*export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm,
  ))
    names.push(m[1]!);
  return names;
}

/**
 * A converted area's face exports only what something outside the area imports (a name nobody takes is surface a
 * reader has to study for nothing), names each export (no `export *`), and there is no other face: `api/index.ts`
 * and `adapters/index.ts` do not exist (`api/` and `adapters/` are the area's inner organisation).
 */
export function trimmedFaces(repo: Repo, notYet: readonly string[] = NOT_YET_CONVERTED): string[] {
  const found: string[] = [];
  for (const area of areasOf(repo).filter((a) => isConverted(a, notYet))) {
    const face = `shared/${area}/index.ts`;
    for (const sub of [`shared/${area}/api/index.ts`, `shared/${area}/adapters/index.ts`])
      if (repo.files.includes(sub)) found.push(`${sub} (a second face: import the files, and export from ${face})`);
    if (!repo.files.includes(face)) continue;
    const taken = new Set(
      repo.imports
        .filter((i) => i.target === face && !(placeOf(i.file).folder === 'shared' && placeOf(i.file).top === area))
        .flatMap((i) => i.names),
    );
    for (const name of exportsOf(repo.source(face))) {
      if (name === '*') found.push(`${face}: export * (name each export)`);
      else if (!taken.has(name) && !taken.has('*'))
        found.push(`${face}: ${name} (imported by nothing outside ${area}/)`);
    }
  }
  return sorted(found);
}

/** Every area has its face. */
export function facesExist(repo: Repo): string[] {
  return areasOf(repo)
    .filter((area) => !repo.files.includes(`shared/${area}/index.ts`))
    .map((area) => `shared/${area}/ has no index.ts`);
}

/** Strongly connected components of a graph with more than one node (or a node importing itself), Tarjan's. */
export function cyclesOf(graph: Map<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** File-level import cycles (type imports count: a reader follows them too), beyond {@link KNOWN_CYCLES}. */
export function fileCycles(repo: Repo, known: readonly string[] = KNOWN_CYCLES): string[] {
  const files = new Set(repo.files);
  const graph = new Map<string, string[]>(repo.files.map((f) => [f, []]));
  for (const i of local(repo)) if (files.has(i.target)) graph.get(i.file)!.push(i.target);
  return cyclesOf(graph)
    .map((cycle) => cycle.join(' <-> '))
    .filter((cycle) => !known.includes(cycle))
    .sort();
}

/** Cycles between areas (an area importing another that imports it back, through any files). */
export function areaCycles(repo: Repo): string[] {
  const graph = new Map<string, string[]>();
  for (const i of local(repo)) {
    const from = placeOf(i.file);
    const to = placeOf(i.target);
    if (!from.isArea || !to.isArea || from.folder !== 'shared' || to.folder !== 'shared' || from.top === to.top)
      continue;
    graph.set(from.top!, [...(graph.get(from.top!) ?? []), to.top!]);
  }
  return cyclesOf(graph).map((cycle) => cycle.join(' <-> '));
}

/**
 * A module that code in `shared/` loads on first use (`import()`: the S3 and Bedrock clients and adapters, kept out
 * of cold starts) is imported only that way in `shared/`. esbuild makes every `import()` it sees a chunk of its own,
 * even in code a function does not use; a static import of the same module from anything the function's bundle
 * reaches (a face, a wiring file) then makes the entry load that chunk at cold start. So an area's wiring takes the
 * clients it needs at once from the composition root, or loads the module with `import()` itself.
 */
export function lazyModules(repo: Repo): string[] {
  const inShared = (file: string) => placeOf(file).folder === 'shared';
  const lazy = new Set(local(repo).flatMap((i) => (i.dynamic && inShared(i.file) ? [i.target] : [])));
  return sorted(
    local(repo)
      .filter((i) => inShared(i.file) && lazy.has(i.target) && !i.dynamic && !i.typeOnly)
      .map((i) => describe(i, 'loaded on first use elsewhere: import() it here too, or take it from the function')),
  );
}

/** The functions reach `shared/` by its alias (`#shared/…`), never by climbing out of `functions/`. */
export function aliases(repo: Repo): string[] {
  return sorted(
    repo.imports
      .filter((i) => placeOf(i.file).folder === 'functions' && /^(\.\.\/)+(shared|local|infra)\//.test(i.specifier))
      .map((i) => describe(i, 'use #shared/')),
  );
}

/**
 * The areas listed as not converted that already meet every rule of a converted one: the list is stale (take them
 * off it, so the rules hold them from now on).
 */
export function staleExemptions(repo: Repo, notYet: readonly string[] = NOT_YET_CONVERTED): string[] {
  const areas = areasOf(repo);
  return notYet.filter((area) => {
    if (!areas.includes(area)) return true;
    const without = notYet.filter((a) => a !== area);
    const mine = (v: string) => v.includes(`shared/${area}/`);
    return [faces, trimmedFaces, sizes, selfExplaining].every((rule) => !rule(repo, without).some(mine));
  });
}
