/**
 * EventBridge event patterns, as AWS documents them: a pattern names fields of the event (nested objects for nested
 * fields) and, for each, an array of conditions, any of which may match (an array in the event matches if any of its
 * elements does). Conditions: a literal (string, number, boolean, null: exact; numbers compare by value), `prefix`,
 * `suffix` (each also `{ "equals-ignore-case": … }`), `equals-ignore-case`, `wildcard`, `anything-but` (a value, a
 * list, or a prefix / suffix / equals-ignore-case / wildcard), `numeric` (one or two comparisons), `exists`; and
 * `$or` (a list of patterns) at any level. `cidr` is not supported (a pattern using it is refused).
 */
export type EventPattern = Record<string, unknown>;

export class InvalidEventPatternError extends Error {}

/** Parses and checks a pattern's JSON; throws {@link InvalidEventPatternError} with AWS's kind of reason. */
export function parseEventPattern(text: string): EventPattern {
  let pattern: unknown;
  try {
    pattern = JSON.parse(text);
  } catch {
    throw new InvalidEventPatternError('Event pattern is not valid. Reason: Filter is not valid JSON');
  }
  if (!isObject(pattern))
    throw new InvalidEventPatternError('Event pattern is not valid. Reason: Filter is not an object');
  checkObject(pattern, '');
  return pattern;
}

function checkObject(pattern: Record<string, unknown>, at: string): void {
  if (!Object.keys(pattern).length) throw invalid(`Empty objects are not allowed${at ? ` at ${at}` : ''}`);
  for (const [key, value] of Object.entries(pattern)) {
    const path = at ? `${at}.${key}` : key;
    if (key === '$or') {
      if (!Array.isArray(value) || value.length < 2 || !value.every(isObject))
        throw invalid(`"$or" must be a list of at least two patterns (${path})`);
      for (const alternative of value) checkObject(alternative, at);
    } else if (Array.isArray(value)) {
      if (!value.length) throw invalid(`Empty arrays are not allowed (${path})`);
      for (const condition of value) checkCondition(condition, path);
    } else if (isObject(value)) checkObject(value, path);
    else throw invalid(`"${path}" must be an object or an array`);
  }
}

const STRING_OR_IGNORE_CASE = (v: unknown) =>
  typeof v === 'string' || (isObject(v) && Object.keys(v).length === 1 && typeof v['equals-ignore-case'] === 'string');

function checkCondition(condition: unknown, path: string): void {
  if (condition === null || ['string', 'number', 'boolean'].includes(typeof condition)) return;
  if (!isObject(condition) || Object.keys(condition).length !== 1) throw invalid(`Unrecognized match type at ${path}`);
  const [[kind, operand]] = Object.entries(condition) as [[string, unknown]];
  const ok = (() => {
    switch (kind) {
      case 'prefix':
      case 'suffix':
        return STRING_OR_IGNORE_CASE(operand);
      case 'equals-ignore-case':
      case 'wildcard':
        return typeof operand === 'string';
      case 'exists':
        return typeof operand === 'boolean';
      case 'numeric':
        return checkNumeric(operand);
      case 'anything-but':
        if (Array.isArray(operand))
          return operand.length > 0 && operand.every((v) => typeof v === 'string' || typeof v === 'number');
        if (isObject(operand)) {
          const [[inner, value]] = Object.entries(operand) as [[string, unknown]];
          if (Object.keys(operand).length !== 1) return false;
          if (inner === 'equals-ignore-case') return typeof value === 'string' || Array.isArray(value);
          return ['prefix', 'suffix', 'wildcard'].includes(inner) && typeof value === 'string';
        }
        return typeof operand === 'string' || typeof operand === 'number';
      default:
        return false;
    }
  })();
  if (!ok) throw invalid(`Unrecognized match type ${kind} at ${path}`);
}

function checkNumeric(operand: unknown): boolean {
  if (!Array.isArray(operand) || (operand.length !== 2 && operand.length !== 4)) return false;
  for (let i = 0; i < operand.length; i += 2)
    if (!['<', '<=', '=', '>', '>='].includes(operand[i] as string) || typeof operand[i + 1] !== 'number') return false;
  return true;
}

const invalid = (reason: string) => new InvalidEventPatternError(`Event pattern is not valid. Reason: ${reason}`);

/** Whether `event` (the whole event: `source`, `detail-type`, `detail`…) matches `pattern`. */
export function matchesEventPattern(pattern: EventPattern, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([key, value]) => {
    if (key === '$or') return (value as EventPattern[]).some((alternative) => matchesEventPattern(alternative, event));
    const present = Object.hasOwn(event, key);
    const field = event[key];
    if (Array.isArray(value)) return value.some((condition) => matchesField(condition, present, field));
    return present && isObject(field) && matchesEventPattern(value as EventPattern, field);
  });
}

function matchesField(condition: unknown, present: boolean, field: unknown): boolean {
  if (isObject(condition) && 'exists' in condition) return condition.exists === (present && !isObject(field));
  if (!present) return false;
  const values = Array.isArray(field) ? field : [field];
  return values.some((value) => matchesValue(condition, value));
}

function matchesValue(condition: unknown, value: unknown): boolean {
  if (!isObject(condition)) {
    if (typeof condition === 'number' && typeof value === 'number') return condition === value;
    return condition === value;
  }
  const [[kind, operand]] = Object.entries(condition) as [[string, unknown]];
  const text = typeof value === 'string' ? value : undefined;
  switch (kind) {
    case 'prefix':
      return text !== undefined && affix(operand, text, (a, b) => a.startsWith(b));
    case 'suffix':
      return text !== undefined && affix(operand, text, (a, b) => a.endsWith(b));
    case 'equals-ignore-case':
      return text !== undefined && text.toLowerCase() === (operand as string).toLowerCase();
    case 'wildcard':
      return text !== undefined && wildcardMatches(operand as string, text);
    case 'numeric':
      return typeof value === 'number' && numeric(operand as (string | number)[], value);
    case 'anything-but':
      return !anythingButExcludes(operand, value);
    default:
      return false;
  }
}

function affix(operand: unknown, text: string, test: (text: string, affix: string) => boolean): boolean {
  if (typeof operand === 'string') return test(text, operand);
  const ignoreCase = (operand as { 'equals-ignore-case': string })['equals-ignore-case'];
  return test(text.toLowerCase(), ignoreCase.toLowerCase());
}

function anythingButExcludes(operand: unknown, value: unknown): boolean {
  if (Array.isArray(operand)) return operand.some((excluded) => matchesValue(excluded, value));
  if (isObject(operand)) {
    const [[inner, excluded]] = Object.entries(operand) as [[string, unknown]];
    if (inner === 'equals-ignore-case' && Array.isArray(excluded))
      return excluded.some((e) => matchesValue({ 'equals-ignore-case': e }, value));
    return matchesValue({ [inner]: excluded }, value);
  }
  return matchesValue(operand, value);
}

function numeric(operand: (string | number)[], value: number): boolean {
  for (let i = 0; i < operand.length; i += 2) {
    const bound = operand[i + 1] as number;
    const holds = {
      '<': value < bound,
      '<=': value <= bound,
      '=': value === bound,
      '>': value > bound,
      '>=': value >= bound,
    }[operand[i] as '<'];
    if (!holds) return false;
  }
  return true;
}

/**
 * `*` as any run of characters: the two-pointer glob match, which backtracks only to the last star (time at most
 * pattern × text), where a regular expression of `.*`s could take exponential time on a hostile pattern.
 */
function wildcardMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
