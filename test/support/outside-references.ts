import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Text that sends the reader to a document the repository does not have: a section of the contract the API was built
 * against, an issue number, the benchmark log. A comment gives the reason; a measurement links its file in
 * bench/history/; user-visible behaviour is in docs/. The section sign is written `\u00a7` and the M of the log's
 * name in brackets, so that this file passes its own check.
 */
const RULES: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\u00a7/, what: 'a section sign' },
  // The same citation spelled out: "section" and a number after "contract" or "spec". An RFC's sections are public.
  { pattern: /\b(contract|spec|specification)('s)?\s+sections?\s+\d/i, what: 'a section of the contract or spec' },
  { pattern: /\bissues?\s*#?\d/i, what: 'an issue number' },
  { pattern: /\bBENCH[M]ARKS\b/, what: 'the benchmark log' },
];

/**
 * What may name the benchmark log: a Markdown link to the file itself (README, docs/), and the file name as a quoted
 * path in code (the link checker's list of files). Removed from a line before the rules run.
 */
const ALLOWED = [/\[[^\]]*\]\([^)]*BENCH[M]ARKS\.md[^)]*\)/g, /'BENCH[M]ARKS\.md'/g];

/** Every source folder, the docs and the READMEs. */
export const CHECKED = [
  'shared',
  'functions',
  'local',
  'console',
  'infra',
  'bench',
  'test',
  'scripts',
  'sdk/src',
  'sdk/README.md',
  'examples',
  'docs',
  'README.md',
  'vitest.config.ts',
  'cdk.json',
  'package.json',
];

/**
 * Left out: bench/history/ and the benchmark log at the root are the measurements' record itself, each entry dated and titled by the work
 * it measured (a record, like a changelog: rewriting it would falsify it); CHANGELOG.md may name the issues a release
 * closed (it names none today). Build output and dependencies are not ours.
 */
const SKIPPED = new Set(['bench/history']);
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'cdk.out', '.data']);
const TEXT = /\.(ts|tsx|mts|cts|mjs|cjs|js|json|md|css|html|sh|ya?ml|txt)$/;

/** Each finding as `file:line: what: the line`. */
export function outsideReferences(files: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    text.split('\n').forEach((line, n) => {
      const checked = ALLOWED.reduce((rest, allowed) => rest.replace(allowed, ''), line);
      for (const rule of RULES) {
        if (rule.pattern.test(checked)) found.push(`${file}:${n + 1}: ${rule.what}: ${line.trim().slice(0, 160)}`);
      }
    });
  }
  return found;
}

/** The checked files of the checkout at `root`, by path relative to it. */
export function checkedFiles(root: string, paths: readonly string[] = CHECKED): Record<string, string> {
  const files: Record<string, string> = {};
  const visit = (path: string): void => {
    if (!statSync(join(root, path)).isDirectory()) {
      if (TEXT.test(path)) files[path] = readFileSync(join(root, path), 'utf8');
      return;
    }
    for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !SKIPPED.has(child)) visit(child);
      } else if (TEXT.test(entry.name)) files[child] = readFileSync(join(root, child), 'utf8');
    }
  };
  for (const path of paths) visit(path);
  return files;
}
