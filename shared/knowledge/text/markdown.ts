/**
 * Markdown as plain text for search: heading marks, emphasis, inline code ticks, images and link targets removed
 * (link text kept), HTML comments dropped, table pipes turned into spaces. Code blocks are kept as text: they are
 * often what a user searches for.
 */
export function markdownToText(markdown: string): string {
  return markdown
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/^```[^\n]*$/gm, '')
    .replace(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm, '\n$1\n')
    .replace(/^ {0,3}(?:[-*_][ \t]*){3,}$/gm, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
    .replace(/^\s*\[[^\]]+\]:\s+\S+.*$/gm, '')
    .replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, '$2')
    .replace(/(?<![\w*])([*_])(?=\S)([^\n*_]*?\S)\1(?![\w*])/g, '$2')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/^ {0,3}>[ \t]?/gm, '')
    .replace(/^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?\s*$/gm, '')
    .replace(/\|/g, ' ');
}
