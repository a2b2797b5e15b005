import { describe, expect, it } from 'vitest';
import { htmlToText } from '#shared/kernel/html-text.ts';
import { startTimeBudget, TimeBudgetExceededError } from '#shared/kernel/time-budget.ts';

/**
 * HTML as the text a reader sees (mail and knowledge files): one pass on htmlparser2's tokenizer. Its parser kept
 * open elements at the front of an array: 100,000 nested `<b>` took 4 s, 200,000 21 s, 100,000 `<b>` then
 * 100,000 `</i>` 46 s; mail's two regexes took 65 s on 320,000 `<`.
 */
function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

describe('htmlToText', () => {
  it('drops scripts, styles and other non-text elements, decodes entities, puts blocks on their own lines', () => {
    expect(
      htmlToText(
        '<title>Manual</title><style>p{}</style><h1>Título</h1><p>Um &amp; dois&nbsp;três</p><ul><li>a</li><li>b</li></ul>' +
          '<svg><text>no</text></svg><table><tr><td>x</td><td>y</td></tr></table><script>if (a < b) c()</script>fim',
      ).text,
    ).toBe('Manual\n\nTítulo\n\nUm & dois três\n\na\n\nb\n\nx\n\ny\n\nfim');
  });

  it('self-closing and unclosed skipped elements', () => {
    expect(htmlToText('a<svg/>b<br/>c').text).toBe('ab\nc');
    expect(htmlToText('visible<script>never closed').text).toBe('visible');
  });

  it.each([
    ['320,000 "<"', '<'.repeat(320_000)],
    ['200,000 nested <b>', '<b>'.repeat(200_000)],
    ['100,000 <b> then 100,000 </i>', `${'<b>'.repeat(100_000)}${'</i>'.repeat(100_000)}`],
    ['100,000 nested <svg>', '<svg>'.repeat(100_000)],
    ['an open tag with 100,000 attributes', `<a ${'x=1 '.repeat(100_000)}`],
    ['an unterminated comment', `<!--${'a'.repeat(1_000_000)}`],
    ['200,000 unterminated entities', '&#x'.repeat(200_000)],
  ])('%s: linear', (_name, html) => {
    expect(timed(() => htmlToText(html))).toBeLessThan(1_500);
  });

  it('cuts the input and the text at their ceilings, and says so', () => {
    expect(htmlToText('<p>abcdef</p>', { maxTextChars: 3 })).toEqual({ text: 'abc', truncated: true });
    expect(htmlToText('<p>abc</p><p>def</p>', { maxInputChars: 10 })).toEqual({ text: 'abc', truncated: true });
    expect(htmlToText('<p>abc</p>', { maxTextChars: 3, maxInputChars: 100 })).toEqual({
      text: 'abc',
      truncated: false,
    });
    const huge = `<p>${'word '.repeat(2_000_000)}</p>`;
    let result: ReturnType<typeof htmlToText> | undefined;
    expect(timed(() => (result = htmlToText(huge, { maxTextChars: 1000 })))).toBeLessThan(1_000);
    expect(result).toMatchObject({ truncated: true });
    expect(result!.text.length).toBeLessThanOrEqual(1000);
  });

  it('stops with TimeBudgetExceededError once the budget is spent', () => {
    let clock = 0;
    const budget = startTimeBudget(1_000, () => (clock += 600));
    expect(() => htmlToText('<p>x</p>'.repeat(100_000), { budget })).toThrow(TimeBudgetExceededError);
  });
});
