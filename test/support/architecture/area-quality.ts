import type { Repo } from './repo.ts';
import { isConverted, NOT_YET_CONVERTED, placeOf } from './places.ts';

/** What a converted area's files must be on top of their imports: short, and explained in their own words. */

const sorted = (items: Iterable<string>) => [...new Set(items)].sort();

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;

/** Lines of a file, a last newline ending the last line. */
const lineCount = (source: string) => source.split('\n').length - (source.endsWith('\n') ? 1 : 0);

/** Top-level functions (`function name` or `const name = (…) =>` at column 0) and their length in lines. */
export function topLevelFunctions(source: string): { name: string; lines: number }[] {
  const lines = source.split('\n');
  const found: { name: string; lines: number }[] = [];
  for (let at = 0; at < lines.length; at++) {
    const m =
      /^(?:export\s+)?(?:async\s+)?function\*?\s+([\w$]+)|^(?:export\s+)?const\s+([\w$]+)\s*=\s*(?:async\s*)?\(/.exec(
        lines[at]!,
      );
    if (!m) continue;
    // It ends on the first line back at column 0: that line when it closes the function, else the line before.
    let next = at + 1;
    while (next < lines.length && !/^\S/.test(lines[next]!)) next++;
    let end = next < lines.length && /^[}\])]/.test(lines[next]!) ? next : next - 1;
    while (end > at && lines[end]!.trim() === '') end--;
    found.push({ name: m[1] ?? m[2]!, lines: end - at + 1 });
  }
  return found;
}

/**
 * Every file of at most 400 lines, wherever it is (the product, its tests, its benchmarks: a newcomer reads them all);
 * in a converted area, top-level functions (use cases, their factories) of at most 120 lines too.
 */
export function sizes(repo: Repo, notYet: readonly string[] = NOT_YET_CONVERTED): string[] {
  const found: string[] = [];
  for (const file of repo.files) {
    const place = placeOf(file);
    const source = repo.source(file);
    const count = lineCount(source);
    if (count > MAX_FILE_LINES) found.push(`${file}: ${count} lines (at most ${MAX_FILE_LINES})`);
    if (!place.isArea || !isConverted(place.top!, notYet)) continue;
    for (const fn of topLevelFunctions(source))
      if (fn.lines > MAX_FUNCTION_LINES)
        found.push(`${file}: ${fn.name} is ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
  }
  return sorted(found);
}

/**
 * Comments that send the reader to a document the repository does not have: a contract section, an issue number,
 * the benchmark log. A comment gives the reason, or links into docs/. (The section sign is written `\u00a7` so that
 * this file passes test/unit/comments.test.ts; the M in brackets likewise.)
 */
const OUTSIDE_REFERENCES = [/\u00a7\s*\d/, /\bcontract\s*\u00a7/i, /\bissues?\s*#?\d+/i, /\bBENCH[M]ARKS\b/];

export function selfExplaining(repo: Repo, notYet: readonly string[] = NOT_YET_CONVERTED): string[] {
  const found: string[] = [];
  for (const file of repo.files) {
    const place = placeOf(file);
    if (!place.isArea || !isConverted(place.top!, notYet)) continue;
    repo
      .source(file)
      .split('\n')
      .forEach((line, n) => {
        if (OUTSIDE_REFERENCES.some((pattern) => pattern.test(line))) found.push(`${file}:${n + 1}: ${line.trim()}`);
      });
  }
  return found;
}
