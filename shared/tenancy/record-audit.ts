import { newId } from '../kernel/ids.ts';
import type { Actor } from './access.ts';
import type { AuditEntry, AuditLog } from './audit.ts';

/** Field names that hold or reveal a secret: never written to the log, whatever the route answers. */
const SECRET_WORDS = /token|secret|password|credential|^key$|apikey|authorization/i;
/** `hasBearerToken`-style flags say whether a secret is set, not what it is: they may be logged. */
const isSecretField = (field: string) => !/^has[A-Z]/.test(field) && SECRET_WORDS.test(field);
/** Fields every change moves; listing them would bury the real changes. */
const NOISE = new Set(['updatedAt']);

export interface RecordAuditInput {
  actor: Actor;
  projectId: string;
  method: string;
  /** The route's path as the API reference writes it (`/admin/v1/projects/{projectId}/bots/{botId}`). */
  template: string;
  params: Readonly<Record<string, string>>;
  requestId: string;
  /** The resource as it read before the change (a PATCH), and the route's answer. */
  before?: unknown;
  after?: unknown;
}

/**
 * Writes the audit entry of one successful change:
 * - `target`: the id a create answered with, else the last id of the path;
 * - `changes`: for a change read before and after, each top-level field that differs, `[before, after]`, except
 *   fields that hold secrets (a bearer token shows as `hasBearerToken` flipping, never as its value).
 */
export function makeRecordAudit(deps: { audit: AuditLog; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return async (input: RecordAuditInput): Promise<AuditEntry> => {
    const target = createdId(input.after, input.params) ?? lastParam(input.params);
    const changes = input.before === undefined ? undefined : diff(input.before, input.after);
    const entry: AuditEntry = {
      id: newId('aud'),
      at: now().toISOString(),
      actor: input.actor.kind === 'admin' ? { kind: 'admin' } : { kind: input.actor.kind, id: input.actor.id },
      action: `${input.method} ${input.template}`,
      ...(target === undefined ? {} : { target }),
      requestId: input.requestId,
      ...(changes && Object.keys(changes).length ? { changes } : {}),
    };
    await deps.audit.append(input.projectId, entry);
    return entry;
  };
}

function createdId(answer: unknown, params: Readonly<Record<string, string>>): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const taken = new Set(Object.values(params));
  for (const [field, value] of Object.entries(answer)) {
    if (field.endsWith('Id') && typeof value === 'string' && !taken.has(value) && !isSecretField(field)) {
      return value;
    }
  }
  return undefined;
}

function lastParam(params: Readonly<Record<string, string>>): string | undefined {
  const values = Object.values(params);
  return values[values.length - 1];
}

function diff(before: unknown, after: unknown): Record<string, [unknown, unknown]> {
  const a = (typeof before === 'object' && before) || {};
  const b = (typeof after === 'object' && after) || {};
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (NOISE.has(field) || isSecretField(field)) continue;
    const was = (a as Record<string, unknown>)[field] ?? null;
    const is = (b as Record<string, unknown>)[field] ?? null;
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = [was, is];
  }
  return changes;
}
