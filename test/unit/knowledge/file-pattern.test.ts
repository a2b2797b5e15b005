import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compileFileFilters, compileFilePattern } from '#shared/knowledge/file-pattern.ts';

/** Reference: the pattern as an anchored regular expression with every character but `%` escaped. */
function oracle(pattern: string, name: string): boolean {
  const source = pattern
    .normalize('NFC')
    .toLowerCase()
    .split('%')
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${source}$`, 'u').test(name.normalize('NFC').toLowerCase());
}

// Names built from characters that matter: wildcards of other syntaxes, regex metacharacters, case, accents.
const tricky = fc.constantFrom(...'abcABC_%*?.[]()^$|\\+{}-/ éÉçÇ0'.split(''));
const name = fc.string({ unit: tricky, maxLength: 24 });
const pattern = fc.string({ unit: tricky, maxLength: 12 });

describe('% file-name patterns', () => {
  test('agree with an anchored, fully escaped regular expression', () => {
    fc.assert(
      fc.property(pattern, name, (p, n) => compileFilePattern(p)(n) === oracle(p, n)),
      { numRuns: 3000 },
    );
  });

  test('a name always matches itself and any pattern made by replacing pieces of it with %', () => {
    fc.assert(
      fc.property(name, fc.array(fc.nat(), { maxLength: 4 }), (n, cuts) => {
        const clean = n.replaceAll('%', '');
        let p = clean;
        for (const c of cuts) {
          const at = clean.length ? c % (clean.length + 1) : 0;
          const end = Math.min(p.length, at + (c % 3));
          p = `${p.slice(0, at)}%${p.slice(end)}`;
        }
        expect(compileFilePattern(clean)(clean)).toBe(true);
        expect(compileFilePattern(p)(clean)).toBe(true);
        expect(compileFilePattern(p.toUpperCase())(clean.toLowerCase())).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  test('_ and regex metacharacters are literal', () => {
    expect(compileFilePattern('a_c.txt')('abc.txt')).toBe(false);
    expect(compileFilePattern('a_c.txt')('a_c.txt')).toBe(true);
    expect(compileFilePattern('a.c')('abc')).toBe(false);
    expect(compileFilePattern('(x)[1]*')('(x)[1]*')).toBe(true);
    expect(compileFilePattern('(x)[1]*')('(x)1')).toBe(false);
    expect(compileFilePattern('.*')('anything')).toBe(false);
    expect(compileFilePattern('%.PDF')('Manual.pdf')).toBe(true);
    expect(compileFilePattern('manual')('manual.pdf')).toBe(false); // whole name
    expect(compileFilePattern('%')('')).toBe(true);
    expect(compileFilePattern('%%')('x')).toBe(true);
  });

  test('very long names and many wildcards stay fast and exact', () => {
    const long = `${'a'.repeat(100_000)}_b`;
    const started = performance.now();
    expect(compileFilePattern(`${'a%'.repeat(200)}_b`)(long)).toBe(true);
    expect(compileFilePattern(`${'a%'.repeat(200)}_c`)(long)).toBe(false);
    expect(compileFilePattern(`%${'a'.repeat(50_000)}%b`)(long)).toBe(true);
    expect(compileFilePattern(`%${'a%'.repeat(5_000)}b%b`)(long)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
    fc.assert(
      fc.property(
        fc.string({ unit: tricky, minLength: 1_000, maxLength: 5_000 }),
        pattern,
        (n, p) => compileFilePattern(p)(n) === oracle(p, n),
      ),
      { numRuns: 100 },
    );
  });

  test('filters: include narrows, exclude wins, none means everything', () => {
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 3 }),
        fc.array(pattern, { maxLength: 3 }),
        name,
        (include, exclude, n) => {
          const expected =
            (include.length === 0 || include.some((p) => oracle(p, n))) && !exclude.some((p) => oracle(p, n));
          return compileFileFilters({ include, exclude })(n) === expected;
        },
      ),
      { numRuns: 2000 },
    );
    expect(compileFileFilters(undefined)('x')).toBe(true);
    expect(compileFileFilters({ include: ['%.md'], exclude: ['draft%'] })('draft-notes.md')).toBe(false);
  });
});
