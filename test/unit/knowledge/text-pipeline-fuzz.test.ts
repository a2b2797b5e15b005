import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { detectLanguage, documentTerms } from '#shared/knowledge/text/analyzer.ts';
import { startTimeBudget, TimeBudgetExceededError } from '#shared/kernel/time-budget.ts';
import { chunkText } from '#shared/knowledge/text/chunker.ts';
import { htmlToText } from '#shared/knowledge/text/html.ts';
import { markdownToText } from '#shared/knowledge/text/markdown.ts';

/**
 * The knowledge text pipeline (Markdown or HTML → text → excerpts → terms) must stay linear in its input: a
 * super-linear pattern holds the ingest worker, and every project's ingestion behind it. Each input gets a time
 * budget far above what linear code needs (a few ms here) and far below what the quadratic and cubic patterns this
 * replaced took on the same input (seconds).
 */
const BUDGET_MS = 300;

function pipeline(text: string, kind: 'markdown' | 'html'): number {
  const plain = kind === 'markdown' ? markdownToText(text) : htmlToText(text);
  const language = detectLanguage(plain);
  let terms = 0;
  for (const excerpt of chunkText(plain)) terms += documentTerms(excerpt, language).length;
  return terms;
}

function elapsedMs(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** Markdown's and HTML's special characters and the whitespace the old patterns tripped on, repeated in runs. */
const token = fc.constantFrom(
  '\n',
  '\n\n',
  ' ',
  '\t',
  '[',
  ']',
  '(',
  ')',
  '![',
  '](',
  '*',
  '**',
  '_',
  '`',
  '#',
  '|',
  '-',
  '---',
  ':',
  '>',
  '<!--',
  '-->',
  '<p>',
  '</',
  '<',
  '&amp;',
  'palavra',
  '.',
);
const run = fc.tuple(token, fc.integer({ min: 1, max: 1500 })).map(([t, n]) => t.repeat(n));
const adversarial = fc.array(fc.oneof(run, token, fc.string({ maxLength: 40 })), { minLength: 1, maxLength: 12 });

describe('text pipeline time budget per input', () => {
  // Sized so that the patterns this replaced take seconds on each (measured: 2,000 newlines took 6.6 s).
  test.each([
    ['blank lines (the table separator pattern was cubic)', '\n'.repeat(1_500)],
    ['blank lines then spaces (reference definitions)', `${'\n'.repeat(700)}${' '.repeat(700)}x`],
    ['runs of "[" (the link pattern was quadratic)', '['.repeat(60_000)],
    ['runs of "![" (images)', '!['.repeat(25_000)],
    ['"[a](" without a closing parenthesis', '[a]('.repeat(25_000)],
    ['unclosed comments', '<!--'.repeat(40_000)],
    ['unclosed strong emphasis', '**a '.repeat(15_000)],
    ['a table separator line that fails at its end', `${'|---'.repeat(25_000)}x`],
    ['spaces before a non-newline', `a${' '.repeat(100_000)}b`],
    ['one very long line', `${'palavra '.repeat(20_000)}\n`],
  ])('Markdown: %s', (_name, text) => {
    expect(elapsedMs(() => pipeline(text, 'markdown'))).toBeLessThan(BUDGET_MS * 3);
  });

  test('random runs of Markdown and HTML syntax stay within the budget per input', () => {
    fc.assert(
      fc.property(adversarial, fc.constantFrom('markdown' as const, 'html' as const), (pieces, kind) => {
        const text = pieces.join('');
        const ms = elapsedMs(() => pipeline(text, kind));
        if (ms > BUDGET_MS) throw new Error(`${kind} took ${Math.round(ms)} ms on ${text.length} chars`);
      }),
      // A super-linear input takes seconds each time it is tried: report the first one rather than shrink it.
      { numRuns: 150, endOnFailure: true },
    );
  });

  test('Markdown conversion stops with TimeBudgetExceededError once its budget is spent', () => {
    let clock = 0;
    const budget = startTimeBudget(1_000, () => (clock += 600));
    expect(() => markdownToText('line\n'.repeat(2_000), budget)).toThrow(TimeBudgetExceededError);
  });
});

describe('Markdown output', () => {
  test('links, images, emphasis, headings, tables, quotes, comments, fences and definitions', () => {
    const text = markdownToText(
      [
        '# Título ##',
        '',
        'Um **negrito**, um _itálico_, `código` e [um link](https://x.test/a_(b)).',
        '![figura](img.png)',
        '| a | b |',
        '|:---|---:|',
        '| 1 | 2 |',
        '> citação',
        '<!-- um',
        'comentário -->depois',
        '[ref]: https://x.test/ref',
        '***',
        '```js',
        'const x = 1;',
        '```',
      ].join('\n'),
    );
    expect(text).toContain('\nTítulo\n');
    expect(text).toContain('Um negrito, um itálico, código e um link.');
    expect(text).toContain('figura');
    expect(text).toMatch(/a +b/);
    expect(text).toContain('citação');
    expect(text).toContain('depois');
    expect(text).toContain('const x = 1;');
    for (const gone of ['#', '**', '|', '---', 'https://', 'comentário', '```', '***', '>'])
      expect(text).not.toContain(gone);
  });
});
