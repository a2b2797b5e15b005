import { checkTimeBudget, type TimeBudget } from '../../kernel/time-budget.ts';

/**
 * Lines longer than this are kept as they are (only table pipes become spaces): no Markdown writer produces them,
 * they are minified or encoded blobs, and it bounds the cost of the per-line patterns below.
 */
export const MARKDOWN_MAX_LINE_CHARS = 20_000;

/** How often (in lines) the time budget is looked at. */
const BUDGET_EVERY_LINES = 512;

/*
 * Every pattern runs on one line at a time and is linear in it: no quantifier can reach past a newline, link and
 * image text cannot hold `[`, and the emphasis and link target patterns are bounded. (The previous whole-document
 * patterns let `\s*` span lines: cubic on runs of blank lines, and quadratic on runs of `[`.)
 */
const FENCE = /^```/;
const HEADING = /^ {0,3}#{1,6}[ \t]+/;
const THEMATIC_BREAK = /^ {0,3}(?:[-*_][ \t]*){3,}$/;
const IMAGE = /!\[([^[\]]*)\]\([^()]{0,2000}\)/g;
const LINK = /\[([^[\]]+)\]\((?:[^()]|\([^()]*\)){0,2000}\)/g;
const REFERENCE_DEFINITION = /^[ \t]*\[[^[\]]+\]:[ \t]+\S/;
// The run between the markers cannot hold the marker itself: a search from one `**` ends at the next (a `.` there
// made `**a **a **a ` cost 500 steps per character: 32 s for 25 MB).
const STRONG = /(\*\*|__)(?=\S)((?:(?!\1).){0,500}?\S)\1/g;
const EMPHASIS = /(?<![\w*])([*_])(?=\S)([^*_]{0,500}?\S)\1(?![\w*])/g;
const CODE = /`([^`]+)`/g;
const BLOCKQUOTE = /^ {0,3}>[ \t]?/;
const TABLE_SEPARATOR = /^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-*:?[ \t]*\|?[ \t]*)?$/;

/**
 * Markdown as plain text for search: heading marks, emphasis, inline code ticks, images and link targets removed
 * (link text kept), HTML comments dropped, table pipes turned into spaces. Code blocks are kept as text: they are
 * often what a user searches for. Linear in the input's length; throws `TimeBudgetExceededError` past `budget`.
 */
export function markdownToText(markdown: string, budget?: TimeBudget): string {
  const lines = withoutComments(markdown).split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (i % BUDGET_EVERY_LINES === 0) checkTimeBudget(budget);
    const line = lines[i]!;
    if (line.length > MARKDOWN_MAX_LINE_CHARS) out.push(line.replaceAll('|', ' '));
    else out.push(lineToText(line));
  }
  return out.join('\n');
}

function lineToText(line: string): string {
  if (FENCE.test(line) || THEMATIC_BREAK.test(line) || REFERENCE_DEFINITION.test(line)) return '';
  const heading = HEADING.exec(line);
  if (heading) return `\n${inline(withoutClosingHashes(line.slice(heading[0].length))).replaceAll('|', ' ')}\n`;
  return inline(line.replace(BLOCKQUOTE, '')).replaceAll('|', ' ');
}

function inline(text: string): string {
  if (TABLE_SEPARATOR.test(text)) return '';
  return text
    .replace(IMAGE, '$1')
    .replace(LINK, '$1')
    .replace(STRONG, '$2')
    .replace(EMPHASIS, '$2')
    .replace(CODE, '$1');
}

/** `Title ##  ` → `Title`: trailing blanks and the optional closing sequence of an ATX heading. */
function withoutClosingHashes(text: string): string {
  let end = text.trimEnd().length;
  while (end > 0 && text[end - 1] === '#') end--;
  return text.slice(0, end).trimEnd();
}

/** `<!-- ... -->` removed (across lines); an unclosed comment is left as text. One pass with `indexOf`. */
function withoutComments(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<!--', from);
    if (open < 0) break;
    const close = text.indexOf('-->', open + 4);
    if (close < 0) break;
    out += text.slice(from, open);
    from = close + 3;
  }
  return from === 0 ? text : out + text.slice(from);
}
