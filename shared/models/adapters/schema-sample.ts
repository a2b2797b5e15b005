/**
 * A value valid against a JSON Schema, made without a model: the offline provider's tool-call arguments and
 * structured answers. Deterministic: the same schema and seed text give the same value. It covers what clients
 * generate (zod, Pydantic, LangChain): `type` (also a list), `enum`, `const`, `anyOf` / `oneOf` / `allOf`, local
 * `$ref`s (`#/$defs/…`, `#/definitions/…`), objects with `properties` / `required`, arrays with `minItems` /
 * `maxItems`, string lengths and common `format`s, number bounds and `multipleOf`. A `pattern` it cannot satisfy
 * in general: the value is then invalid, and the caller's validation says so.
 */
export function sampleFromSchema(schema: unknown, seedText: string): unknown {
  const word = seedWord(seedText);
  return sample(schema, schema, word, 0, undefined);
}

/** Deep enough for any real schema; a recursive `$ref` stops here with the smallest value. */
const MAX_DEPTH = 16;

type Schema = Record<string, unknown>;

function sample(node: unknown, root: unknown, word: string, depth: number, key: string | undefined): unknown {
  if (node === true || node === undefined) return word;
  if (typeof node !== 'object' || node === null) return null;
  const schema = node as Schema;
  if (depth > MAX_DEPTH) return smallest(schema);
  if (typeof schema.$ref === 'string') return sample(resolveRef(schema.$ref, root), root, word, depth + 1, key);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && options.length > 0) {
      const preferred = options.find((o) => !isNullSchema(o)) ?? options[0];
      return sample({ ...withoutKeyword(schema, keyword), ...(preferred as Schema) }, root, word, depth + 1, key);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Schema = withoutKeyword(schema, 'allOf');
    for (const part of schema.allOf) mergeInto(merged, (resolveMaybe(part, root) ?? {}) as Schema);
    return sample(merged, root, word, depth + 1, key);
  }
  switch (typeOf(schema)) {
    case 'object':
      return sampleObject(schema, root, word, depth);
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : Math.max(min, 1);
      const count = Math.min(Math.max(min, 1), max, 50);
      if (Array.isArray(schema.prefixItems))
        return schema.prefixItems.map((item, i) => sample(item, root, word, depth + 1, `${key}_${i}`));
      return Array.from({ length: count }, (_, i) =>
        sample(schema.items ?? {}, root, i === 0 ? word : `${word}${i + 1}`, depth + 1, key),
      );
    }
    case 'string':
      return sampleString(schema, word);
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return word;
  }
}

function sampleObject(schema: Schema, root: unknown, word: string, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) out[name] = sample(property, root, word, depth + 1, name);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  for (const name of required) if (!(name in out)) out[name] = word;
  return out;
}

function sampleString(schema: Schema, word: string): string {
  const formats: Record<string, string> = {
    'date-time': '2026-01-01T00:00:00Z',
    date: '2026-01-01',
    time: '00:00:00Z',
    email: 'offline@example.com',
    uri: 'https://example.com/',
    url: 'https://example.com/',
    uuid: '00000000-0000-4000-8000-000000000000',
    hostname: 'example.com',
    ipv4: '192.0.2.1',
  };
  let text = typeof schema.format === 'string' && formats[schema.format] ? formats[schema.format]! : word;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  while (text.length < min) text += text.length ? ` ${word}` : word || 'x';
  return text.length > max ? text.slice(0, max) : text;
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const min = numberOr(schema.minimum, numberOr(schema.exclusiveMinimum, undefined, integer ? 1 : 0.5));
  const max = numberOr(schema.maximum, numberOr(schema.exclusiveMaximum, undefined, integer ? -1 : -0.5));
  // 1 when the bounds allow it (zod writes ±2^53 bounds on every integer), else the nearest bound.
  let value = 1;
  if (min !== undefined && value < min) value = min;
  if (max !== undefined && value > max) value = max;
  if (integer) value = min !== undefined && value === min ? Math.ceil(value) : Math.floor(value);
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (step) value = Math.ceil(value / step) * step;
  return value;
}

/** A number keyword's value, or the exclusive one moved inside the range by `nudge`. */
function numberOr(value: unknown, fallback: number | undefined, nudge = 0): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value + nudge;
  return fallback;
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') ?? type[0]) as string | undefined;
  if (schema.properties || schema.required || schema.additionalProperties !== undefined) return 'object';
  if (schema.items || schema.prefixItems) return 'array';
  return undefined;
}

function smallest(schema: Schema): unknown {
  switch (typeOf(schema)) {
    case 'object':
      return {};
    case 'array':
      return [];
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return '';
  }
}

function isNullSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Schema).type === 'null';
}

function withoutKeyword(schema: Schema, keyword: string): Schema {
  const { [keyword]: _, ...rest } = schema;
  return rest;
}

function mergeInto(target: Schema, part: Schema): void {
  for (const [k, v] of Object.entries(part)) {
    if (k === 'properties' && typeof v === 'object' && v)
      target.properties = { ...((target.properties ?? {}) as Schema), ...(v as Schema) };
    else if (k === 'required' && Array.isArray(v))
      target.required = [...new Set([...((target.required ?? []) as string[]), ...v])];
    else target[k] = v;
  }
}

function resolveMaybe(node: unknown, root: unknown): unknown {
  if (typeof node === 'object' && node && typeof (node as Schema).$ref === 'string')
    return resolveRef((node as Schema).$ref as string, root);
  return node;
}

/** A local reference (`#`, `#/$defs/x`, `#/definitions/x`); anything else samples as "any". */
function resolveRef(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#')) return {};
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return {};
    node = (node as Schema)[part];
  }
  return node ?? {};
}

/**
 * The word string values are made of: the last capitalised word of the text that does not open it (a place or a
 * name: "weather in Lisbon" → "Lisbon"), else its longest word, else `offline`.
 */
export function seedWord(text: string): string {
  const words = text.match(/\p{L}[\p{L}\p{N}'-]*/gu) ?? [];
  const named = words.slice(1).filter((w) => /^\p{Lu}/u.test(w) && !/^\p{Lu}+$/u.test(w));
  if (named.length > 0) return named.at(-1)!;
  const longest = [...words].sort((a, b) => b.length - a.length)[0];
  return longest ?? 'offline';
}
