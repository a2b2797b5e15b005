import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonAnswer } from '#shared/completion/json-answer.ts';

describe('parseJsonAnswer', () => {
  it('reads any JSON value, bare or inside one Markdown code fence, with surrounding whitespace', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.constantFrom('', 'json', 'JSON'),
        fc.constantFrom('', ' ', '\n', '\n\n  '),
        (value, lang, pad) => {
          const text = JSON.stringify(value, null, 2);
          const expected = JSON.parse(text);
          expect(parseJsonAnswer(`${pad}${text}${pad}`)).toEqual({ ok: true, value: expected });
          expect(parseJsonAnswer(`${pad}\`\`\`${lang}\n${text}\n\`\`\`${pad}`)).toEqual({ ok: true, value: expected });
        },
      ),
    );
  });

  it.each([
    ['prose around the value', 'Here you go: {"a":1}'],
    ['truncated JSON', '{"a": [1, 2'],
    ['two values', '{"a":1}\n{"b":2}'],
    ['an empty answer', '   '],
    ['an empty fence', '```json\n```'],
    ['text after the fence', '```json\n{"a":1}\n```\nHope this helps!'],
  ])('rejects %s', (_label, text) => {
    expect(parseJsonAnswer(text)).toEqual({ ok: false });
  });

  it('tolerates a byte-order mark and CRLF line ends', () => {
    expect(parseJsonAnswer('\uFEFF```json\r\n{"a":1}\r\n```')).toEqual({ ok: true, value: { a: 1 } });
  });
});
