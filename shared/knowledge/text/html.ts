import { Parser } from 'htmlparser2';

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

/**
 * The text a reader sees in an HTML document: scripts, styles and other non-text elements dropped, entities
 * decoded, block elements on their own lines, headings and paragraphs separated by blank lines. The `<title>` is
 * kept (it often names the document) although the rest of `<head>` is not.
 */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let skipDepth = 0;
  let inTitle = false;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIPPED.has(name) && !inTitle) skipDepth++;
        if (BLOCK.has(name)) out.push(PARAGRAPH.has(name) ? '\n\n' : '\n');
        if (name === 'td' || name === 'th') out.push(' ');
      },
      ontext(text) {
        if (skipDepth === 0 || inTitle) out.push(text);
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIPPED.has(name) && skipDepth > 0) skipDepth--;
        if (BLOCK.has(name)) out.push(PARAGRAPH.has(name) ? '\n\n' : '\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return out
    .join('')
    .replace(/[ \t\r\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
