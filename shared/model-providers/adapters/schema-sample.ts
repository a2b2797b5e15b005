/**
 * A value valid against a JSON Schema, made without a model: the offline provider's tool-call arguments and
 * structured answers. Deterministic: the same schema and seed text give the same value. It covers what clients
 * generate (zod, Pydantic, LangChain): `type` (also a list), `enum`, `const`, `anyOf` / `oneOf` / `allOf`, local
 * `$ref`s (`#/$defs/…`, `#/definitions/…`), objects with `properties` / `required`, arrays with `minItems` /
 * `maxItems`, string lengths and common `format`s, number bounds and `multipleOf`. A `pattern` it cannot satisfy
 * in general: the value is then invalid, and the caller's validation says so.
 *
 * Bounded however the schema nests: the value's JSON text never passes `maxChars` (a model's output ceiling), and
 * the work done is linear in it. Arrays of arrays each asking for many items multiply; once the room is spent the
 * value stops growing (shorter arrays, fewer properties, cut strings) and `complete` is false, as a model stops at
 * its token limit.
 */
export function boundedSample(
  schema: unknown,
  seedText: string,
  maxChars: number,
): { value: unknown; complete: boolean } {
  const room: Room = { left: maxChars, work: WORK_PER_CHAR * maxChars + BASE_WORK, complete: true };
  const value = sample(schema, schema, seedWord(seedText), 0, undefined, room);
  return value === NOTHING ? { value: null, complete: false } : { value, complete: room.complete };
}

/** {@link boundedSample} within a default room (what the default output ceiling allows), the value alone. */
export function sampleFromSchema(schema: unknown, seedText: string): unknown {
  return boundedSample(schema, seedText, DEFAULT_MAX_CHARS).value;
}

/** 4,096 tokens of about 4 characters. */
const DEFAULT_MAX_CHARS = 16_384;
/** Steps (schema nodes visited, keywords merged) allowed per character of room, plus a floor for tiny rooms. */
const WORK_PER_CHAR = 8;
const BASE_WORK = 10_000;

/** Deep enough for any real schema; a recursive `$ref` stops here with the smallest value. */
const MAX_DEPTH = 16;

type Schema = Record<string, unknown>;

/** What is left: characters of JSON text, steps of work; `complete` turns false at the first thing left out. */
interface Room {
  left: number;
  work: number;
  complete: boolean;
}

/** No room left for even the smallest value here. */
const NOTHING = Symbol('nothing');
type Sampled = unknown | typeof NOTHING;

/** Takes `chars` of room, or leaves the room as it is and answers false. */
function take(room: Room, chars: number): boolean {
  if (chars > room.left) {
    room.complete = false;
    return false;
  }
  room.left -= chars;
  return true;
}

/** A value that is written as it is (a `const`, an `enum` member, a number): it fits whole or not at all. */
function literal(value: unknown, room: Room): Sampled {
  return take(room, JSON.stringify(value)?.length ?? 4) ? value : NOTHING;
}

function sample(
  node: unknown,
  root: unknown,
  word: string,
  depth: number,
  key: string | undefined,
  room: Room,
): Sampled {
  if (--room.work < 0) {
    room.complete = false;
    return NOTHING;
  }
  if (node === true || node === undefined) return sampleString({}, word, room);
  if (typeof node !== 'object' || node === null) return literal(null, room);
  const schema = node as Schema;
  if (depth > MAX_DEPTH) return literal(smallest(schema), room);
  if (typeof schema.$ref === 'string') return sample(resolveRef(schema.$ref, root), root, word, depth + 1, key, room);
  if ('const' in schema) return literal(schema.const, room);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return literal(schema.enum[0], room);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && options.length > 0) {
      const preferred = options.find((o) => !isNullSchema(o)) ?? options[0];
      const merged = { ...withoutKeyword(schema, keyword, room), ...(preferred as Schema) };
      return sample(merged, root, word, depth + 1, key, room);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Schema = withoutKeyword(schema, 'allOf', room);
    for (const part of schema.allOf) mergeInto(merged, (resolveMaybe(part, root) ?? {}) as Schema, room);
    return sample(merged, root, word, depth + 1, key, room);
  }
  switch (typeOf(schema)) {
    case 'object':
      return sampleObject(schema, root, word, depth, room);
    case 'array':
      return sampleArray(schema, root, word, depth, key, room);
    case 'string':
      return sampleString(schema, word, room);
    case 'integer':
      return literal(sampleNumber(schema, true), room);
    case 'number':
      return literal(sampleNumber(schema, false), room);
    case 'boolean':
      return literal(true, room);
    case 'null':
      return literal(null, room);
    default:
      return sampleString({}, word, room);
  }
}

function sampleArray(
  schema: Schema,
  root: unknown,
  word: string,
  depth: number,
  key: string | undefined,
  room: Room,
): Sampled {
  if (!take(room, 2)) return NOTHING;
  const items: { schema: unknown; word: string; key: string | undefined }[] = [];
  if (Array.isArray(schema.prefixItems))
    for (const [i, item] of schema.prefixItems.entries()) items.push({ schema: item, word, key: `${key}_${i}` });
  else {
    const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
    const max = typeof schema.maxItems === 'number' ? schema.maxItems : Math.max(min, 1);
    const count = Math.min(Math.max(min, 1), max, 50);
    for (let i = 0; i < count; i++)
      items.push({ schema: schema.items ?? {}, word: i === 0 ? word : `${word}${i + 1}`, key });
  }
  const out: unknown[] = [];
  for (const item of items) {
    if (out.length > 0 && !take(room, 1)) break;
    const value = sample(item.schema, root, item.word, depth + 1, item.key, room);
    if (value === NOTHING) {
      if (out.length > 0) room.left += 1;
      break;
    }
    out.push(value);
  }
  return out;
}

function sampleObject(schema: Schema, root: unknown, word: string, depth: number, room: Room): Sampled {
  if (!take(room, 2)) return NOTHING;
  const out: Record<string, unknown> = {};
  let first = true;
  const add = (name: string, value: () => Sampled): boolean => {
    // `"name":` and a comma before every property but the first.
    const cost = JSON.stringify(name).length + 1 + (first ? 0 : 1);
    if (!take(room, cost)) return false;
    const made = value();
    if (made === NOTHING) {
      room.left += cost;
      return false;
    }
    out[name] = made;
    first = false;
    return true;
  };
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties))
    if (!add(name, () => sample(property, root, word, depth + 1, name, room))) return out;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  for (const name of required)
    if (typeof name === 'string' && !(name in out) && !add(name, () => sampleString({}, word, room))) return out;
  return out;
}

function sampleString(schema: Schema, word: string, room: Room): Sampled {
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
  // Never longer than the room (a `minLength` of a billion asks for what no output ceiling allows).
  const target = Math.min(min, Math.max(0, room.left - 2));
  if (text.length < target) {
    const unit = ` ${word || 'x'}`;
    text = (text || 'x') + unit.repeat(Math.ceil((target - text.length) / unit.length));
  }
  if (text.length > max) text = text.slice(0, max);
  if (text.length > room.left - 2) {
    if (room.left < 2) {
      room.complete = false;
      return NOTHING;
    }
    text = text.slice(0, room.left - 2);
    room.complete = false;
  }
  return take(room, JSON.stringify(text).length) ? text : NOTHING;
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

function withoutKeyword(schema: Schema, keyword: string, room: Room): Schema {
  room.work -= Object.keys(schema).length;
  const { [keyword]: _, ...rest } = schema;
  return rest;
}

function mergeInto(target: Schema, part: Schema, room: Room): void {
  for (const [k, v] of Object.entries(part)) {
    room.work--;
    if (k === 'properties' && typeof v === 'object' && v) {
      room.work -= Object.keys(v).length;
      target.properties = { ...((target.properties ?? {}) as Schema), ...(v as Schema) };
    } else if (k === 'required' && Array.isArray(v)) {
      room.work -= v.length;
      target.required = [...new Set([...((target.required ?? []) as string[]), ...v])];
    } else target[k] = v;
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
