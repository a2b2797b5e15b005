import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { detectLanguage, documentTerms, queryTermGroups } from '#shared/knowledge/text/analyzer.ts';
import { chunkText, normalizeText } from '#shared/knowledge/text/chunker.ts';
import { decodeText, extractDocumentText } from '#shared/knowledge/text/extract.ts';
import { htmlToText } from '#shared/knowledge/text/html.ts';
import { markdownToText } from '#shared/knowledge/text/markdown.ts';

const wordChars = fc.constantFrom(...'abcdefghijklmnoprstuvçãéõ'.split(''));
const word = fc.string({ unit: wordChars, minLength: 3, maxLength: 14 });
const sentence = fc.array(word, { minLength: 1, maxLength: 30 }).map((ws) => `${ws.join(' ')}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 12 }).map((ss) => ss.join(' '));
const documentArb = fc.array(paragraph, { minLength: 1, maxLength: 12 }).map((ps) => ps.join('\n\n'));

describe('chunking', () => {
  test('never cuts a word, stays within the target, loses no word', () => {
    fc.assert(
      fc.property(documentArb, fc.integer({ min: 80, max: 1200 }), (doc, target) => {
        const chunks = chunkText(doc, { targetChars: target, overlapChars: Math.floor(target * 0.15) });
        const allWords = new Set(normalizeText(doc).split(/\s+/));
        const seen = new Set<string>();
        for (const chunk of chunks) {
          if (chunk.length > target || chunk !== chunk.trim()) return false;
          for (const w of chunk.split(/\s+/)) {
            if (!allWords.has(w)) return false; // a word cut in two is not a word of the text
            seen.add(w);
          }
        }
        return seen.size === allWords.size;
      }),
      { numRuns: 200 },
    );
  });

  test('about 1,000 characters by default, cut at paragraph then sentence boundaries, with an overlap', () => {
    const para = (n: number) =>
      Array.from({ length: n }, (_, i) => `Frase número ${i} do parágrafo com algumas palavras.`).join(' ');
    const doc = [para(10), para(30), para(5)].join('\n\n');
    const chunks = chunkText(doc);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(1000);
      expect(c).toMatch(/\.$/); // ends on a sentence
    }
    const [a, b] = [chunks[1]!, chunks[2]!];
    const tail = a.slice(a.lastIndexOf('Frase'));
    expect(b.slice(0, 200)).toContain(tail); // the next excerpt opens with the last sentences of this one
    expect(b.startsWith('Frase')).toBe(true);
  });

  test('an over-long token is the only thing ever cut', () => {
    const blob = 'x'.repeat(2500);
    const chunks = chunkText(`antes ${blob} depois`, { targetChars: 1000, overlapChars: 100 });
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(1000);
    expect(chunks.join('').replace(/\s/g, '')).toContain('antes');
    expect(chunks.at(-1)).toContain('depois');
  });
});

describe('text of documents', () => {
  test('HTML: scripts, styles, templates and comments dropped; entities decoded; blocks on their own lines', () => {
    const text =
      htmlToText(`<html><head><title>Título</title><style>p{color:red}</style><script>var secret = "s3cr3t";</script></head>
      <body><!-- hidden comment --><h1>Olá &amp; bem-vindo</h1><p>Primeiro&nbsp;parágrafo.</p><template><p>modelo</p></template>
      <noscript>ative o js</noscript><ul><li>um</li><li>dois</li></ul><svg><text>grafico</text></svg><script type="module">alert(1)</script></body></html>`);
    expect(text).toContain('Título');
    expect(text).toContain('Olá & bem-vindo');
    expect(text).toContain('Primeiro parágrafo.');
    expect(text).toMatch(/um\n+dois/);
    for (const hidden of ['s3cr3t', 'color:red', 'hidden comment', 'modelo', 'ative o js', 'grafico', 'alert'])
      expect(text).not.toContain(hidden);
  });

  test('Markdown: markup removed, text and link text kept', () => {
    const text = markdownToText(
      '# Título\n\nUm **negrito**, um _itálico_, `código` e [um link](https://x.test/a_(b)).\n\n![figura](img.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |',
    );
    expect(text).toContain('Título');
    expect(text).toContain('Um negrito, um itálico, código e um link.');
    expect(text).not.toContain('https://x.test');
    expect(text).not.toContain('**');
    expect(text).not.toContain('|');
  });

  test('text decoding: UTF-8, BOMs, declared charset, Windows-1252 fallback; binary data refused', async () => {
    expect(decodeText(Buffer.from('\ufeffação', 'utf8'))).toBe('ação');
    expect(decodeText(Buffer.from('ação', 'latin1'))).toBe('ação');
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ação', 'utf16le')]))).toBe('ação');
    expect(decodeText(Buffer.from('ação', 'latin1'), 'iso-8859-1')).toBe('ação');
    await expect(extractDocumentText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]), 'text/plain')).rejects.toThrow(
      /binary/,
    );
    await expect(extractDocumentText(Buffer.from('<script>x</script>'), 'text/html')).rejects.toThrow(
      /no readable text/,
    );
  });
});

describe('Portuguese and English terms', () => {
  const same = (a: string, lang: 'pt' | 'en', b: string) =>
    expect(documentTerms(a, lang)).toEqual(documentTerms(b, lang));

  test('accents folded, plural and singular meet, stop words dropped', () => {
    same('informação', 'pt', 'informacao');
    same('informações', 'pt', 'informacoes');
    same('informações', 'pt', 'informação');
    same('devoluções', 'pt', 'devolução');
    same('políticas', 'pt', 'politica');
    same('Reembolsos', 'pt', 'reembolso');
    same('policies', 'en', 'policy');
    same('cancelled', 'en', 'cancel');
    expect(documentTerms('o que é a política de uma loja', 'pt')).toEqual(documentTerms('política loja', 'pt'));
    expect(documentTerms('the policy of the shop', 'en')).toEqual(documentTerms('policy shop', 'en'));
  });

  test('a query word carries both its Portuguese and its English term; the index meets either', () => {
    const [group] = queryTermGroups('Devoluções');
    expect(group).toContain(documentTerms('devolucao', 'pt')[0]);
    const [en] = queryTermGroups('refunds');
    expect(en).toContain(documentTerms('refund', 'en')[0]);
    expect(queryTermGroups('the and of')).toHaveLength(3); // only stop words: kept
  });

  test('language detection by stop words', () => {
    expect(detectLanguage('A política de trocas da loja é simples e o cliente não paga nada.')).toBe('pt');
    expect(detectLanguage('The refund policy of the store is simple and the customer pays nothing.')).toBe('en');
  });
});
