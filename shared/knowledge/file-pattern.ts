import type { FileFilters } from './knowledge-search.ts';

/**
 * A file-name pattern of the search filters: `%` matches any run of characters (empty included); every other
 * character is literal (`_`, `*`, `.`, regex metacharacters...). Matching is case-insensitive on the whole name.
 * Built without regular expressions: literal pieces are found in order, which is exact for a single wildcard kind
 * and linear in the name's length per piece (no backtracking blow-up on long names).
 */
export function compileFilePattern(pattern: string): (fileName: string) => boolean {
  const pieces = fold(pattern).split('%');
  if (pieces.length === 1) {
    const exact = pieces[0]!;
    return (name) => fold(name) === exact;
  }
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p.length > 0);
  const minLength = head.length + tail.length + middle.reduce((n, p) => n + p.length, 0);
  return (name) => {
    const s = fold(name);
    if (s.length < minLength || !s.startsWith(head) || !s.endsWith(tail)) return false;
    let from = head.length;
    const end = s.length - tail.length;
    for (const piece of middle) {
      const at = s.indexOf(piece, from);
      if (at < 0 || at + piece.length > end) return false;
      from = at + piece.length;
    }
    return true;
  };
}

/** Case folding for file names: lower case, Unicode-normalised so "é" typed two ways compares equal. */
function fold(s: string): string {
  return s.normalize('NFC').toLowerCase();
}

/**
 * The filters as one predicate: a file is searched when it matches some `include` pattern (or there is none) and
 * no `exclude` pattern. Exclusion wins.
 */
export function compileFileFilters(filters: FileFilters | undefined): (fileName: string) => boolean {
  const include = (filters?.include ?? []).map(compileFilePattern);
  const exclude = (filters?.exclude ?? []).map(compileFilePattern);
  if (!include.length && !exclude.length) return () => true;
  return (name) => (include.length === 0 || include.some((m) => m(name))) && !exclude.some((m) => m(name));
}
