import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository as the architecture rules see it: its source files (path → text) and every import between them.
 * Read from disk for the real check, or made from a handful of made-up files to show a rule failing
 * (test/unit/architecture-rules.test.ts).
 */
export interface Repo {
  /** Repository-relative paths (`shared/bots/index.ts`), sorted. */
  files: readonly string[];
  source(file: string): string;
  imports: readonly Import[];
}

export interface Import {
  file: string;
  specifier: string;
  /** Repository-relative path for `./`, `../` and `#…/` specifiers; undefined for packages and Node built-ins. */
  target?: string;
  /** `import type` / `export type` / `import('…').Type`: erased at run time, but still an arrow a reader follows. */
  typeOnly: boolean;
  /** `import('…')` as a value: loaded on first use, in a chunk of its own in a function's bundle. */
  dynamic: boolean;
  /** The names taken (`import { a, type B }`, `export { a } from`); `*` for a namespace or `export *`. */
  names: string[];
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The folders whose code the rules cover: everything that is ours and TypeScript (sdk/ is its own package). */
export const CHECKED_FOLDERS = ['shared', 'functions', 'local', 'infra', 'console/src', 'bench', 'scripts', 'test'];

const SOURCE = /\.(ts|tsx|mts)$/;
const SKIPPED = new Set(['node_modules', 'dist', 'fixtures']);

function listFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : listFiles(root, path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/** The repository on disk. */
export function readRepo(root = ROOT, folders = CHECKED_FOLDERS): Repo {
  const files = folders.flatMap((folder) => listFiles(root, folder));
  const cache = new Map<string, string>();
  const source = (file: string) => {
    const text = cache.get(file) ?? readFileSync(join(root, file), 'utf8');
    cache.set(file, text);
    return text;
  };
  return repoOf(files, source);
}

/** A made-up repository: path → source. */
export function fakeRepo(sources: Record<string, string>): Repo {
  return repoOf(Object.keys(sources), (file) => sources[file] ?? '');
}

function repoOf(files: string[], source: (file: string) => string): Repo {
  const sorted = [...files].sort();
  return { files: sorted, source, imports: sorted.flatMap((file) => importsIn(file, source(file))) };
}

/** Comments dropped (block and line), strings kept: an example import in a doc comment is not an import. */
export function withoutComments(source: string): string {
  return source.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/^\s*\/\/.*$/gm, '');
}

const STATIC = /^\s*(import|export)(\s+type)?\s([^'";]*?)\sfrom\s*['"]([^'"]+)['"]/gm;
const BARE = /^\s*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /(\btypeof\s+)?\bimport\(\s*['"]([^'"]+)['"]\s*\)(\.(?!then\b|catch\b|finally\b)[A-Za-z_$])?/g;

/**
 * Every import of a TypeScript source: `import … from`, `import type … from`, `export … from`, side-effect
 * `import '…'` and `import('…')` (as a value or in a type), over several lines too. (TypeScript 7 has no JavaScript
 * API to ask.)
 */
export function importsIn(file: string, source: string): Import[] {
  const code = withoutComments(source);
  const found: Import[] = [];
  for (const m of code.matchAll(STATIC)) {
    const clause = m[3]!;
    found.push(resolved(file, m[4]!, m[2] !== undefined, false, namesIn(clause)));
  }
  for (const m of code.matchAll(BARE)) found.push(resolved(file, m[1]!, false, false, []));
  // `typeof import('…')` and `import('…').Name` are types; `import('…')` awaited or `.then`ed is a value.
  for (const m of code.matchAll(DYNAMIC)) {
    const type = m[1] !== undefined || m[3] !== undefined;
    found.push(resolved(file, m[2]!, type, !type, ['*']));
  }
  return found;
}

/** `{ a, type B, c as d }` → a, B, c; `* as ns` or `*` → `*`; a default import → `default`. */
function namesIn(clause: string): string[] {
  const names: string[] = [];
  const braces = /\{([^}]*)\}/.exec(clause);
  if (braces)
    for (const part of braces[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!
        .trim();
      if (name) names.push(name);
    }
  if (/\*/.test(clause.replace(/\{[^}]*\}/, ''))) names.push('*');
  const head = clause
    .replace(/\{[^}]*\}/, '')
    .replace(/\*\s*as\s+\w+/, '')
    .replace(/^\s*type\s/, '')
    .trim();
  if (/^[A-Za-z_$][\w$]*/.test(head)) names.push('default');
  return names;
}

const ALIASES: Record<string, string> = {
  '#shared/': 'shared/',
  '#functions/': 'functions/',
  '#local/': 'local/',
  '#infra/': 'infra/',
  '#test/': 'test/',
};

function resolved(file: string, specifier: string, typeOnly: boolean, dynamic: boolean, names: string[]): Import {
  let target: string | undefined;
  if (specifier.startsWith('.')) target = posix.normalize(posix.join(posix.dirname(file), specifier));
  else
    for (const [alias, folder] of Object.entries(ALIASES))
      if (specifier.startsWith(alias)) target = folder + specifier.slice(alias.length);
  return { file, specifier, typeOnly, dynamic, names, ...(target ? { target } : {}) };
}
