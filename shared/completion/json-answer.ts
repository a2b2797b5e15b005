const FENCED = /^```[ \t]*(?:json|JSON|json5)?[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```$/;

export type JsonAnswer = { ok: true; value: unknown } | { ok: false };

/**
 * Parses a model's answer as one JSON value. Tolerated around it: whitespace, a byte-order mark, and one Markdown
 * code fence (```json … ``` or ``` … ```), which models add even when told not to. Anything else (prose around
 * the value, two values, truncated JSON) does not parse.
 */
export function parseJsonAnswer(text: string): JsonAnswer {
  let body = text.replace(/^\uFEFF/, '').trim();
  const fenced = FENCED.exec(body);
  if (fenced) body = fenced[1]!.trim();
  if (body.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}
