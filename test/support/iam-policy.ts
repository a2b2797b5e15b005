/**
 * An evaluator of AWS identity policies for the IAM check of bundles mode, covering exactly what the stack's role
 * policies use: `Allow` and `Deny` statements with `Action` and `Resource` lists, `*` and `?` wildcards. Anything
 * else a policy may hold (`NotAction`, `NotResource`, `Principal`, policy variables, short ARNs, a `Deny` with a
 * `Condition`) throws {@link UnsupportedPolicy}: the check must fail where it cannot judge, never guess an answer. An
 * `Allow` with a `Condition` counts only when every condition is `StringEquals` or `StringLike` on keys the recorded
 * call carries (`sts:ExternalId` of an AssumeRole) and holds; any other condition (tags, source IP...) is never
 * counted as allowing: a call it alone would allow is reported denied, the safe side for a check that must never
 * pass what AWS might refuse.
 *
 * The rules (IAM's policy evaluation logic for one account's identity policies): an explicit deny wins; otherwise
 * a matching allow allows; otherwise the call is implicitly denied. Actions match case-insensitively; resources
 * match case-sensitively, the ARN's first five parts (`arn`, partition, service, region, account) each on its own
 * (a wildcard there does not reach past a colon), the resource part whole (`*` there matches `/` and `:` too).
 */

export type Decision = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied';

/** A policy element or value this evaluator does not implement. */
export class UnsupportedPolicy extends Error {
  override name = 'UnsupportedPolicy';
}

interface Statement {
  effect: 'Allow' | 'Deny';
  actions: string[];
  resources: string[];
  /** An `Allow` that holds only under its `Condition` (operator → key → values). */
  condition?: Record<string, Record<string, unknown>>;
}

/** The condition operators judged here; any other keeps its statement from allowing anything. */
const STRING_OPERATORS: Record<string, (pattern: string, value: string) => boolean> = {
  StringEquals: (pattern, value) => pattern === value,
  StringLike: (pattern, value) => wildcard(pattern, false).test(value),
};

const DOCUMENT_KEYS = new Set(['Version', 'Statement']);
const STATEMENT_KEYS = new Set(['Sid', 'Effect', 'Action', 'Resource', 'Condition']);

/** The decision IAM makes for `action` on `resource` under `documents` (the role's identity policies). */
export function evaluate(
  documents: readonly unknown[],
  action: string,
  resource: string,
  context: Readonly<Record<string, string>> = {},
): Decision {
  // Every statement is read before any is matched, so an unsupported element fails the check wherever it is.
  const statements = documents.flatMap(statementsOf);
  let allowed = false;
  for (const s of statements) {
    if (s.condition && !conditionHolds(s.condition, context)) continue;
    if (!s.actions.some((p) => actionMatches(p, action)) || !s.resources.some((p) => resourceMatches(p, resource)))
      continue;
    if (s.effect === 'Deny') return 'ExplicitlyDenied';
    allowed = true;
  }
  return allowed ? 'Allowed' : 'ImplicitlyDenied';
}

function statementsOf(document: unknown): Statement[] {
  if (!isObject(document)) throw new UnsupportedPolicy(`A policy document must be an object: ${show(document)}`);
  for (const key of Object.keys(document))
    if (!DOCUMENT_KEYS.has(key)) throw new UnsupportedPolicy(`Policy element ${key} is not supported`);
  // Only this version has policy variables and the current grammar; the older one reads `${...}` literally.
  if (document.Version !== '2012-10-17')
    throw new UnsupportedPolicy(`Policy version ${show(document.Version)} is not supported (only 2012-10-17)`);
  const statements = Array.isArray(document.Statement) ? document.Statement : [document.Statement];
  return statements.map((statement: unknown) => {
    if (!isObject(statement)) throw new UnsupportedPolicy(`A statement must be an object: ${show(statement)}`);
    for (const key of Object.keys(statement))
      if (!STATEMENT_KEYS.has(key)) throw new UnsupportedPolicy(`Statement element ${key} is not supported`);
    const { Effect } = statement;
    if (Effect !== 'Allow' && Effect !== 'Deny') throw new UnsupportedPolicy(`Effect ${show(Effect)} is not valid`);
    const conditional = statement.Condition !== undefined;
    if (conditional && (Effect === 'Deny' || !isObject(statement.Condition)))
      throw new UnsupportedPolicy(
        `Statement element Condition is not supported on ${Effect}: ${show(statement.Condition)}`,
      );
    return {
      ...(conditional ? { condition: statement.Condition as Statement['condition'] } : {}),
      effect: Effect,
      actions: strings(statement.Action, 'Action').map(checkedAction),
      resources: strings(statement.Resource, 'Resource').map(checkedResource),
    };
  });
}

/** Every operator known and every key present in the call's context with a value one of the patterns matches. */
function conditionHolds(condition: NonNullable<Statement['condition']>, context: Readonly<Record<string, string>>) {
  return Object.entries(condition).every(([operator, keys]) => {
    const matches = STRING_OPERATORS[operator];
    if (!matches || !isObject(keys)) return false;
    return Object.entries(keys).every(([key, patterns]) => {
      // Condition keys are case-insensitive.
      const name = Object.keys(context).find((k) => k.toLowerCase() === key.toLowerCase());
      const value = name === undefined ? undefined : context[name];
      const list = Array.isArray(patterns) ? patterns : [patterns];
      return value !== undefined && list.some((p) => typeof p === 'string' && matches(p, value));
    });
  });
}

function strings(value: unknown, element: string): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((v) => typeof v === 'string'))
    throw new UnsupportedPolicy(`${element} must be a string or a non-empty list of strings: ${show(value)}`);
  return list as string[];
}

function checkedAction(pattern: string): string {
  if (pattern !== '*' && !/^[a-z0-9-]+:[A-Za-z0-9*?]+$/i.test(pattern))
    throw new UnsupportedPolicy(`Action ${show(pattern)} is not "*" or "service:Action"`);
  return pattern;
}

function checkedResource(pattern: string): string {
  if (pattern.includes('${')) throw new UnsupportedPolicy(`Policy variables are not supported: ${show(pattern)}`);
  if (pattern !== '*' && !(pattern.startsWith('arn:') && pattern.split(':').length >= 6))
    throw new UnsupportedPolicy(`Resource ${show(pattern)} is neither "*" nor a full ARN`);
  return pattern;
}

export function actionMatches(pattern: string, action: string): boolean {
  return wildcard(pattern, true).test(action);
}

export function resourceMatches(pattern: string, resource: string): boolean {
  if (pattern === '*') return true;
  const [want, got] = [arnParts(pattern), arnParts(resource)];
  return !!want && !!got && want.every((part, i) => wildcard(part, false).test(got[i]!));
}

/** `arn`, partition, service, region, account, and the resource part (which may hold colons). */
function arnParts(arn: string): string[] | undefined {
  const parts = arn.split(':');
  return parts[0] === 'arn' && parts.length >= 6 ? [...parts.slice(0, 5), parts.slice(5).join(':')] : undefined;
}

const compiled = new Map<string, RegExp>();

/** `*`: any run of characters, `?`: any one character, everything else literal. */
function wildcard(pattern: string, ignoreCase: boolean): RegExp {
  const key = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let regex = compiled.get(key);
  if (!regex) {
    const body = [...pattern]
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${body}$`, ignoreCase ? 'is' : 's');
    compiled.set(key, regex);
  }
  return regex;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);
