import { NotFoundError } from '../kernel/domain-error.ts';
import type { PageRequest } from '../kernel/page.ts';
import type { AuditLog } from './audit.ts';

/** A page of the project's audit log, newest first (the project must exist: an unknown one is 404). */
export function makeListAudit(deps: { audit: AuditLog; projectExists(projectId: string): Promise<boolean> }) {
  return async (projectId: string, page: PageRequest) => {
    if (!(await deps.projectExists(projectId))) throw new NotFoundError('project', `No project ${projectId}.`);
    return deps.audit.list(projectId, page);
  };
}

export type ListAudit = ReturnType<typeof makeListAudit>;
