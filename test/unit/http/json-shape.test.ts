import { describe, expect, it } from 'vitest';
import type { HttpError } from '#shared/http/errors.ts';
import { parseJsonObjectBody } from '#shared/http/middleware.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { checkJsonShape, JsonShapeError } from '#shared/kernel/json-shape.ts';

/**
 * JSON bodies are bounded in shape before they are parsed: 10 MB of `[` took JSON.parse 5.8 s and
 * 290 MB of heap, and a value nested that deep breaks every later recursive walk of it.
 */
const body = (text: string) => ({ body: text, isBase64Encoded: false }) as HttpEvent;

function refusal(text: string): HttpError {
  try {
    parseJsonObjectBody(body(text));
  } catch (error) {
    return error as HttpError;
  }
  throw new Error('not refused');
}

describe('JSON shape ceilings', () => {
  it('refuses nesting deeper than 64 levels with 400 VALIDATION_ERROR, before parsing (milliseconds for 10 MB)', () => {
    const deep = `{"a":${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}}`;
    const started = performance.now();
    const error = refusal(deep);
    expect(performance.now() - started).toBeLessThan(500);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error.details).toEqual([expect.objectContaining({ path: '', code: 'too_big' })]);
    expect(error.message).toMatch(/deeper than 64 levels/);
  });

  it('refuses more than 100,000 objects and arrays', () => {
    const wide = `{"a":[${Array.from({ length: 100_001 }, () => '{}').join(',')}]}`;
    expect(refusal(wide)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('accepts 64 levels, and counts no bracket inside a string, escaped quotes included', () => {
    const sixtyFour = `${'['.repeat(63)}1${']'.repeat(63)}`;
    expect(parseJsonObjectBody(body(`{"a":${sixtyFour}}`))).toEqual({ a: JSON.parse(sixtyFour) });
    const text = `{"code":"${'[{'.repeat(200_000)} \\" ${'[{'.repeat(10)}\\\\"}`;
    expect(() => checkJsonShape(text)).not.toThrow();
    expect(() => checkJsonShape(`{"a":"\\\\"${'['.repeat(65)}`)).toThrow(JsonShapeError);
  });

  it('leaves what is not JSON to JSON.parse: 400 INVALID_JSON', () => {
    expect(refusal('{"a": [1, 2')).toMatchObject({ status: 400, code: 'INVALID_JSON' });
    expect(refusal('{"a": "unterminated')).toMatchObject({ status: 400, code: 'INVALID_JSON' });
  });
});
