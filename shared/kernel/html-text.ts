import { Tokenizer } from 'htmlparser2';
import { checkTimeBudget, type TimeBudget } from './time-budget.ts';

/** Elements whose content is never text a reader sees. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas']);
/** Elements that start a new line (block-level and line-breaking). */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'title',
  'option',
]);
/** Block elements separated from the next by a blank line. */
const PARAGRAPH = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'ul',
  'ol',
  'blockquote',
  'pre',
  'section',
  'article',
  'title',
  'hr',
]);

/** How much HTML is tokenized between two looks at the time budget. */
const CHUNK_CHARS = 64 * 1024;

export interface HtmlTextOptions {
  /** HTML characters read; the rest is not (and `truncated` says so). Default: all of it. */
  maxInputChars?: number;
  /** Characters of text kept; reading stops past them (and `truncated` says so). Default: no limit. */
  maxTextChars?: number;
  /** Checked between chunks of input: throws `TimeBudgetExceededError` once it has run out. */
  budget?: TimeBudget;
}

export interface HtmlText {
  text: string;
  /** True when the input or the text passed its ceiling and was cut. */
  truncated: boolean;
}

/**
 * The text a reader sees in an HTML document, in one linear pass: scripts, styles and other non-text elements
 * dropped, entities decoded, block elements on their own lines, paragraphs separated by blank lines, whitespace
 * folded. The `<title>` is kept (it often names the document).
 *
 * htmlparser2's tokenizer alone, not its `Parser`: the parser keeps open elements at the front of an array and looks
 * end tags up in it, so nesting is quadratic (100,000 nested `<b>` took 4 s, 600 KB of `<b>` then `</i>` 46 s). Here
 * no element stack is kept, only the depth of skipped elements. Used for mail (`text` of an HTML-only mail) and for
 * HTML knowledge files.
 */
export function htmlToText(html: string, options: HtmlTextOptions = {}): HtmlText {
  const maxInput = options.maxInputChars ?? Number.POSITIVE_INFINITY;
  const maxText = options.maxTextChars ?? Number.POSITIVE_INFINITY;
  const input = html.length > maxInput ? html.slice(0, maxInput) : html;
  let truncated = input.length < html.length;

  const out: string[] = [];
  let produced = 0;
  let skipDepth = 0;
  let inTitle = false;
  let openName = '';
  const emit = (text: string) => {
    out.push(text);
    produced += text.length;
  };
  const visible = () => skipDepth === 0 || inTitle;
  const open = (name: string) => {
    if (name === 'title') inTitle = true;
    if (SKIPPED.has(name) && !inTitle) skipDepth++;
    if (BLOCK.has(name)) emit(PARAGRAPH.has(name) ? '\n\n' : '\n');
    if (name === 'td' || name === 'th') emit(' ');
  };
  const close = (name: string) => {
    if (name === 'title') inTitle = false;
    if (SKIPPED.has(name) && skipDepth > 0) skipDepth--;
    if (BLOCK.has(name)) emit(PARAGRAPH.has(name) ? '\n\n' : '\n');
  };
  const name = (start: number, end: number) => input.slice(start, end).toLowerCase();
  const ignore = () => {};
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        openName = name(start, end);
      },
      onopentagend() {
        open(openName);
      },
      onselfclosingtag() {
        open(openName);
        // `<br/>` is one line break; `<svg/>` and `<p/>` open and close.
        if (openName !== 'br' && openName !== 'hr') close(openName);
      },
      onclosetag(start, end) {
        close(name(start, end));
      },
      ontext(start, end) {
        if (visible()) emit(input.slice(start, end));
      },
      ontextentity(codePoint) {
        if (visible()) emit(String.fromCodePoint(codePoint));
      },
      onattribdata: ignore,
      onattribentity: ignore,
      onattribend: ignore,
      onattribname: ignore,
      oncdata: ignore,
      oncomment: ignore,
      ondeclaration: ignore,
      onend: ignore,
      onprocessinginstruction: ignore,
    },
  );
  for (let at = 0; at < input.length; at += CHUNK_CHARS) {
    checkTimeBudget(options.budget);
    tokenizer.write(input.slice(at, at + CHUNK_CHARS));
    // Folding whitespace only shortens: past the ceiling before folding may still fit after it, so read on to twice.
    if (produced > 2 * maxText && at + CHUNK_CHARS < input.length) {
      truncated = true;
      break;
    }
  }
  tokenizer.end();
  let text = fold(out.join(''));
  if (text.length > maxText) {
    text = text.slice(0, maxText).trimEnd();
    truncated = true;
  }
  return { text, truncated };
}

/** Runs of spaces to one, no spaces around line breaks, at most one blank line; each pattern linear. */
function fold(text: string): string {
  return text
    .replace(/[ \t\r\f\v\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
