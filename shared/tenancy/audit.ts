import type { Page, PageRequest } from '../kernel/page.ts';

/** One successful state-changing management request, as the project's audit log keeps it. */
export interface AuditEntry {
  id: string;
  at: string;
  /** Who: the operator (no id), a project key (its keyId) or a portal session (its id). */
  actor: { kind: 'admin' | 'key' | 'portal'; id?: string };
  /** `<METHOD> <route template>`, as the API reference writes the path. */
  action: string;
  /** The id of what was created, changed or deleted. */
  target?: string;
  requestId: string;
  /** Each changed field: `[before, after]`. Never a secret, a token or a key. */
  changes?: Record<string, [unknown, unknown]>;
}

/** Entries are kept this long, then the store drops them. */
export const AUDIT_RETENTION_DAYS = 365;

/** A project's audit log: appended to, read newest first. */
export interface AuditLog {
  append(projectId: string, entry: AuditEntry): Promise<void>;
  list(projectId: string, page: PageRequest): Promise<Page<AuditEntry>>;
}
