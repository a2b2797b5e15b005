// biome-ignore lint/suspicious/noExplicitAny: JSON Schema and OpenAPI objects, walked by key.
type Json = Record<string, any>;

/** A time every composed example uses (the named examples use the same). */
const EXAMPLE_TIME = '2026-11-21T10:00:00.000Z';

/**
 * An example value for a JSON Schema, composed from the examples it carries: its own `example`/`examples`, a
 * referenced component's, `const`, the first `enum` value, `default`, the first branch of a union, and objects and
 * arrays from their parts (an optional property without an example is left out; a required one without one gives
 * up). Undefined when the schema gives nothing to go on: the document then has no example there, and the test that
 * wants one for every answer names it.
 */
export function exampleOf(schema: Json | undefined, components: Record<string, Json>, depth = 0): unknown {
  if (!schema || depth > 12) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (typeof schema.$ref === 'string')
    return exampleOf(components[schema.$ref.split('/').pop()!], components, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(schema[key])) {
      for (const branch of schema[key]) {
        const value = exampleOf(branch, components, depth + 1);
        if (value !== undefined) return value;
      }
      return undefined;
    }
  if (Array.isArray(schema.allOf)) {
    let merged: unknown;
    for (const part of schema.allOf) {
      const value = exampleOf(part, components, depth + 1);
      if (value === undefined) continue;
      merged = isObject(value) && isObject(merged) ? { ...merged, ...value } : (merged ?? value);
    }
    return merged;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    const required = new Set<string>(schema.required ?? []);
    const out: Json = {};
    for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
      const value = exampleOf(property, components, depth + 1);
      if (value !== undefined) out[name] = value;
      else if (required.has(name)) return undefined;
    }
    return out;
  }
  if (type === 'array') {
    const item = exampleOf(schema.items, components, depth + 1);
    return item === undefined ? undefined : [item];
  }
  if (type === 'string' && schema.format === 'date-time') return EXAMPLE_TIME;
  if (schema.type === 'null') return null;
  return undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
