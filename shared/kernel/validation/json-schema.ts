import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';

/**
 * JSON Schemas that callers send (a function's parameters, the schema an answer must match), compiled with ajv and
 * checked against their dialect's meta-schema. The dialect is the schema's `$schema` (draft-07 / draft-06 and
 * 2019-09 as clients such as zod and the Vercel AI SDK write them, 2020-12 as LangChain writes them); without one,
 * 2020-12. `pattern`s run on RE2 (re2js: linear time), so a caller's regular expression cannot stall validation.
 * Compiled schemas are kept (by their JSON text) for the next request with the same schema.
 */

/**
 * A schema that compiled: `validate` answers undefined for a valid value, else the first rule of the schema the value
 * breaks, in words: where the rule is in the schema and what it asks. Nothing of the value itself is quoted (neither
 * its text nor its keys): the value may be a model's answer, and the words go back to the caller.
 */
export interface CompiledJsonSchema {
  validate(value: unknown): string | undefined;
}

export type JsonSchemaCompilation = { ok: true; schema: CompiledJsonSchema } | { ok: false; message: string };

/** Longest schema (its JSON text) compiled. */
export const JSON_SCHEMA_MAX_CHARS = 100_000;
/**
 * Most nodes (objects and arrays) and deepest nesting of a schema compiled: ajv's code generation grows faster than
 * the node count (300 string properties: about 100 ms on this machine, 1,000: over a second) and recurses with the
 * depth, so both are bounded before it runs. Real schemas are far smaller (a function's arguments: tens of nodes).
 */
export const JSON_SCHEMA_MAX_NODES = 300;
export const JSON_SCHEMA_MAX_DEPTH = 32;

/**
 * Where a JSON value is over a node count or a depth: walked without recursion, so a hostile value cannot overflow
 * the stack here (or in `JSON.stringify` after it). Undefined when within both.
 */
export function jsonShapeProblem(value: unknown, limits: { nodes: number; depth: number }): string | undefined {
  return jsonShape(value, limits).problem;
}

/** {@link jsonShapeProblem}, with the nodes counted (up to the first one past the limit). */
export function jsonShape(
  value: unknown,
  limits: { nodes: number; depth: number },
): { nodes: number; problem?: string } {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (++nodes > limits.nodes) return { nodes, problem: `it has more than ${limits.nodes} objects and arrays` };
    if (depth > limits.depth) return { nodes, problem: `it is nested deeper than ${limits.depth} levels` };
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return { nodes };
}

/** ajv's regular-expression engine option: RE2 semantics, linear in the input. */
const re2 = Object.assign((pattern: string, _flags: string) => RE2JS.compile(pattern), {
  code: 'require("re2js").RE2JS.compile',
});

const OPTIONS: Options = {
  strict: false,
  allErrors: false,
  // A schema's `$id` must not collide with the next caller's: nothing is registered by id.
  addUsedSchema: false,
  logger: false,
  code: { regExp: re2 },
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

/** One ajv per dialect, made on first use (each compiles its meta-schemas: tens of milliseconds). */
const engines = new Map<string, Ajv>();
function engine(dialect: string | undefined): Ajv {
  const name = dialect === undefined || /2020-12/.test(dialect) ? '2020' : /2019-09/.test(dialect) ? '2019' : '07';
  let ajv = engines.get(name);
  if (!ajv) {
    ajv =
      name === '2020'
        ? (new Ajv2020(OPTIONS) as unknown as Ajv)
        : name === '2019'
          ? (new Ajv2019(OPTIONS) as unknown as Ajv)
          : new Ajv(OPTIONS);
    addFormats(ajv);
    engines.set(name, ajv);
  }
  return ajv;
}

const CACHE_SIZE = 200;
const cache = new Map<string, JsonSchemaCompilation>();

/**
 * Checks a caller's JSON Schema against its dialect's meta-schema without compiling it (no code is generated: linear
 * in the schema, a few milliseconds where compiling costs a hundred). What only compiling finds (a `$ref` that does not
 * resolve, a `pattern` RE2 cannot run) is left to {@link compileJsonSchema}. Bound its shape first.
 */
export function checkJsonSchema(schema: Record<string, unknown>): { ok: true } | { ok: false; message: string } {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : undefined;
  if (dialect !== undefined && !SUPPORTED_DIALECT.test(dialect)) return unsupportedDialect(dialect);
  const ajv = engine(dialect);
  try {
    if (ajv.validateSchema(schema) === true) return { ok: true };
  } catch (error) {
    return { ok: false, message: firstLine(error instanceof Error ? error.message : String(error)) };
  }
  const [first] = ajv.errors ?? [];
  return { ok: false, message: first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'is invalid' };
}

const SUPPORTED_DIALECT = /json-schema\.org\/(draft-0[67]|draft\/2019-09|draft\/2020-12)\//;
const unsupportedDialect = (dialect: string) => ({
  ok: false as const,
  message: `unsupported $schema "${dialect.slice(0, 100)}" (use draft-07, 2019-09 or 2020-12)`,
});

/** Compiles a caller's JSON Schema; a schema its dialect's meta-schema refuses, or ajv cannot compile, is not ok. */
export function compileJsonSchema(schema: unknown): JsonSchemaCompilation {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { ok: false, message: 'a JSON Schema must be an object' };
  const shape = jsonShapeProblem(schema, { nodes: JSON_SCHEMA_MAX_NODES, depth: JSON_SCHEMA_MAX_DEPTH });
  if (shape) return { ok: false, message: `the schema is too large: ${shape}` };
  const text = JSON.stringify(schema);
  if (text.length > JSON_SCHEMA_MAX_CHARS)
    return { ok: false, message: `the schema is over ${JSON_SCHEMA_MAX_CHARS} characters of JSON` };
  const cached = cache.get(text);
  if (cached) {
    cache.delete(text);
    cache.set(text, cached);
    return cached;
  }
  const result = compile(schema as Record<string, unknown>);
  cache.set(text, result);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return result;
}

function compile(schema: Record<string, unknown>): JsonSchemaCompilation {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : undefined;
  if (dialect !== undefined && !SUPPORTED_DIALECT.test(dialect)) return unsupportedDialect(dialect);
  let validate: ValidateFunction;
  try {
    validate = engine(dialect).compile(schema);
  } catch (error) {
    return { ok: false, message: firstLine(error instanceof Error ? error.message : String(error)) };
  }
  return {
    ok: true,
    schema: {
      validate(value) {
        if (validate(value)) return undefined;
        const [first] = validate.errors ?? [];
        // ajv's messages are made from the schema's own keywords and values, never from the value validated.
        return first ? `${first.schemaPath}: ${first.message ?? 'is invalid'}` : 'is invalid';
      },
    },
  };
}

const firstLine = (text: string) => text.split('\n')[0]!.slice(0, 300);
