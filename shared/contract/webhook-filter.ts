/**
 * A webhook's `filter`: `{ "all": [ { "field", "op", "value"? } ] }`, every condition must hold for an
 * event to be delivered. Fields are dotted paths in the envelope (`channel.type`, `data.from`, `data.media`,
 * `data.media.0.contentType`: a segment of digits indexes an array). Ops:
 *
 * - `eq`: the field's value is `value` (a string, number, boolean or null; compared strictly: `"1"` is not `1`);
 * - `in`: the field's value is one of `value` (1 to {@link MAX_IN_VALUES} such scalars);
 * - `prefix`: the field is a string starting with `value` (a non-empty string);
 * - `exists`: the field is present and not null (`value` absent or `true`), or absent or null (`value: false`).
 *
 * Kept free of imports: the console bundles this file to try a filter on a sample event with the same rules the
 * fan-out applies, and the API validates with {@link filterProblems} (its structural schema is the integrations area's,
 * `shared/integrations/api/admin-routes.ts`). It is the contract's, not the integrations area's, for the console: a
 * page that reads it loads nothing else.
 */

export const FILTER_OPS = ['eq', 'in', 'prefix', 'exists'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
/** At most 10 conditions. */
export const MAX_FILTER_CONDITIONS = 10;
export const MAX_IN_VALUES = 100;
export const MAX_FIELD_LENGTH = 200;
export const MAX_FIELD_SEGMENTS = 10;
/** Longest string a condition may compare with (an address, an id, a status: never a body). */
export const MAX_FILTER_STRING_LENGTH = 1_000;
/** The envelope's top-level fields: the first segment of every path. */
export const FILTER_ROOTS = ['id', 'type', 'timestamp', 'projectId', 'companyId', 'channel', 'data'] as const;

export type FilterScalar = string | number | boolean | null;

export interface FilterCondition {
  field: string;
  op: FilterOp;
  value?: FilterScalar | FilterScalar[];
}

export interface WebhookFilter {
  all: FilterCondition[];
}

/** One problem of a filter, with its path under the filter (`all.0.value`), as the API's `details[]` report it. */
export interface FilterProblem {
  path: (string | number)[];
  message: string;
}

const SEGMENT = /^(?:[A-Za-z_][A-Za-z0-9_-]*|\d{1,6})$/;

function isScalar(value: unknown): value is FilterScalar {
  return (
    value === null ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (typeof value === 'string' && value.length <= MAX_FILTER_STRING_LENGTH)
  );
}

function fieldProblem(field: unknown): string | undefined {
  if (typeof field !== 'string' || field.length === 0) return 'A dotted path in the envelope, e.g. "channel.type"';
  if (field.length > MAX_FIELD_LENGTH) return `At most ${MAX_FIELD_LENGTH} characters`;
  const segments = field.split('.');
  if (segments.length > MAX_FIELD_SEGMENTS) return `At most ${MAX_FIELD_SEGMENTS} segments`;
  if (!segments.every((s) => SEGMENT.test(s)))
    return 'Segments are names (letters, digits, _ and -) or array indexes, separated by dots';
  if (!(FILTER_ROOTS as readonly string[]).includes(segments[0]!))
    return `Must start with an envelope field: ${FILTER_ROOTS.join(', ')}`;
  return undefined;
}

function valueProblem(op: FilterOp, value: unknown, present: boolean): string | undefined {
  switch (op) {
    case 'eq':
      if (!present) return 'eq needs a value';
      return isScalar(value) ? undefined : 'A string, number, boolean or null';
    case 'in':
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES)
        return `in needs a list of 1 to ${MAX_IN_VALUES} values`;
      return value.every(isScalar) ? undefined : 'Every value is a string, number, boolean or null';
    case 'prefix':
      return typeof value === 'string' && value.length > 0 && value.length <= MAX_FILTER_STRING_LENGTH
        ? undefined
        : 'prefix needs a non-empty string';
    case 'exists':
      return !present || typeof value === 'boolean' ? undefined : 'exists takes true, false or no value';
  }
}

/**
 * Every problem of a would-be filter (empty: valid). Unknown keys are problems too, as everywhere in the API. Bounded:
 * it looks at most at {@link MAX_FILTER_CONDITIONS} + 1 conditions and {@link MAX_IN_VALUES} + 1 values each.
 */
export function filterProblems(filter: unknown): FilterProblem[] {
  const problems: FilterProblem[] = [];
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    return [{ path: [], message: 'An object: { "all": [ { "field", "op", "value"? } ] }' }];
  for (const key of Object.keys(filter)) if (key !== 'all') problems.push({ path: [key], message: 'Unknown field' });
  const all = (filter as { all?: unknown }).all;
  if (!Array.isArray(all) || all.length === 0 || all.length > MAX_FILTER_CONDITIONS) {
    problems.push({ path: ['all'], message: `A list of 1 to ${MAX_FILTER_CONDITIONS} conditions` });
    if (!Array.isArray(all) || all.length > MAX_FILTER_CONDITIONS) return problems;
  }
  all.forEach((condition: unknown, i) => {
    if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) {
      problems.push({ path: ['all', i], message: 'A condition: { "field", "op", "value"? }' });
      return;
    }
    const c = condition as Record<string, unknown>;
    for (const key of Object.keys(c))
      if (key !== 'field' && key !== 'op' && key !== 'value')
        problems.push({ path: ['all', i, key], message: 'Unknown field' });
    const field = fieldProblem(c.field);
    if (field) problems.push({ path: ['all', i, 'field'], message: field });
    if (!(FILTER_OPS as readonly unknown[]).includes(c.op)) {
      problems.push({ path: ['all', i, 'op'], message: `One of ${FILTER_OPS.join(', ')}` });
      return;
    }
    const value = valueProblem(c.op as FilterOp, c.value, Object.hasOwn(c, 'value'));
    if (value) problems.push({ path: ['all', i, 'value'], message: value });
  });
  return problems;
}

/**
 * The value at a dotted path of a parsed envelope; undefined when any step is missing. Only own properties are
 * followed (`constructor`, `__proto__` are never reached through a prototype).
 */
export function valueAt(envelope: unknown, field: string): unknown {
  let node: unknown = envelope;
  for (const segment of field.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(segment)) return undefined;
      node = node[Number(segment)];
    } else {
      if (!Object.hasOwn(node, segment)) return undefined;
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return node;
}

function holds(condition: FilterCondition, envelope: unknown): boolean {
  const actual = valueAt(envelope, condition.field);
  switch (condition.op) {
    case 'eq':
      return actual !== undefined && actual === condition.value;
    case 'in':
      return (
        actual !== undefined &&
        Array.isArray(condition.value) &&
        condition.value.some((candidate) => candidate === actual)
      );
    case 'prefix':
      return typeof actual === 'string' && typeof condition.value === 'string' && actual.startsWith(condition.value);
    case 'exists': {
      const present = actual !== undefined && actual !== null;
      return condition.value === false ? !present : present;
    }
  }
}

/** Whether an event (its parsed envelope) passes a filter; no filter passes everything. */
export function matchesFilter(filter: WebhookFilter | null | undefined, envelope: unknown): boolean {
  if (!filter) return true;
  return filter.all.every((condition) => holds(condition, envelope));
}
