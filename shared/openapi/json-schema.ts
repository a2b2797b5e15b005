import * as z from '../kernel/validation/zod.ts';
import { SCHEMA_OVERRIDES } from './public-operations.ts';

/** Zod schemas as the document's JSON Schema (zod's own conversion, tidied), and the types the builders share. */

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema and OpenAPI objects, walked by key.
export type Json = Record<string, any>;

/** A request or answer schema as JSON Schema; named schemas go to `components.schemas` and are referred to. */
export type Convert = (schema: z.ZodMiniType, io: 'input' | 'output') => Json;

export const SCHEMA_REF = '#/components/schemas/';

/**
 * zod → JSON Schema (draft 2020-12, OpenAPI 3.1's dialect). Named schemas (`.meta({ id })`) go to
 * `components.schemas` and are referenced; the safe-integer bounds and the date-time regex zod adds are dropped as
 * noise (the `format` says it).
 */
export function toJsonSchema(schema: z.ZodMiniType, io: 'input' | 'output', components: Record<string, Json>): Json {
  const converted = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const replacement = SCHEMA_OVERRIDES.get(ctx.zodSchema);
      if (replacement) {
        for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[key];
        Object.assign(ctx.jsonSchema, replacement);
      }
    },
  }) as Json;
  const defs = (converted.$defs ?? {}) as Record<string, Json>;
  delete converted.$defs;
  delete converted.$schema;
  for (const [id, def] of Object.entries(defs)) components[id] = tidy(rewriteRefs(def));
  return tidy(rewriteRefs(converted));
}

export function toJsonSchemaInline(schema: z.ZodMiniType): Json {
  const converted = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', reused: 'inline' }) as Json;
  const defs = (converted.$defs ?? {}) as Record<string, Json>;
  const root = converted.$ref ? (defs[String(converted.$ref).split('/').pop()!] ?? converted) : converted;
  const copy = { ...root };
  delete copy.$schema;
  delete copy.$defs;
  delete copy.id;
  return tidy(copy);
}

function rewriteRefs(value: Json): Json {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', `"${SCHEMA_REF}`)) as Json;
}

const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

function tidy(value: Json): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === 'minimum' && v === SAFE_MIN) continue;
      if (k === 'maximum' && v === SAFE_MAX) continue;
      if (k === 'pattern' && (node as Json).format === 'date-time') continue;
      out[k] = walk(v);
    }
    return out;
  };
  return walk(value) as Json;
}

export function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
