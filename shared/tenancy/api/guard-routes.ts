import type { BoundRoute, RouteRequest } from '../../http/router.ts';
import type { HttpResult } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import { authorizeBody, type RouteAccess } from '../access.ts';
import type { makeRecordAudit } from '../record-audit.ts';
import type { Caller } from './caller.ts';

export type RecordAudit = ReturnType<typeof makeRecordAudit>;

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Each route's handler, guarded: once its body is read, a project role that sends an operator-only field is refused
 * (403); after a successful change, the audit entry is written under the change's project. A change read before and
 * after (a PATCH whose path also answers a GET) records each field that moved.
 *
 * The entry is written after the change succeeded and before the answer: if the write fails, the change stands and
 * the caller gets its answer; the entry goes to the log as an error (the audit log never refuses a change it could
 * not record, since the caller would retry a change that was made).
 */
/**
 * Requests that feed data rather than change configuration: a reported channel event is the event itself (its own
 * record in the delivery log), and at a project's events rate its audit entries would crowd the project's audit
 * partition past what one partition takes.
 */
const NOT_AUDITED = new Set(['reportEvent']);

export function guardRoutes(
  prefix: string,
  routes: readonly BoundRoute[],
  access: RouteAccess,
  recordAudit: RecordAudit,
  logger: Logger,
): BoundRoute[] {
  const readers = new Map(routes.filter((r) => r.method === 'GET').map((r) => [r.path, r]));
  return routes.map((r) => {
    const rule = access[r.name ?? ''];
    const reader = r.method === 'PATCH' ? readers.get(r.path) : undefined;
    return {
      ...r,
      handle: async (request: RouteRequest<Record<string, string>, unknown, unknown>): Promise<HttpResult> => {
        const caller = request.event.auth as Caller | undefined;
        if (caller && rule && rule !== 'anyone') authorizeBody(caller.actor, rule, request.body);
        if (!caller || !CHANGES.has(r.method) || NOT_AUDITED.has(r.name ?? '')) return r.handle(request);
        const before = reader ? bodyOf(await reader.handle({ ...request, query: {}, body: undefined })) : undefined;
        const result = await r.handle(request);
        if (result.statusCode >= 400) return result;
        const after = bodyOf(result);
        const projectId = request.params.projectId ?? projectIdOf(after);
        if (projectId === undefined) return result;
        await recordAudit({
          actor: caller.actor,
          projectId,
          method: r.method,
          template: `${prefix}${r.path}`,
          params: request.params,
          requestId: request.requestId,
          ...(before === undefined ? {} : { before }),
          ...(after === undefined ? {} : { after }),
        }).catch((cause: unknown) => {
          logger.error('audit entry not written', { projectId, action: `${r.method} ${r.path}`, cause: String(cause) });
        });
        return result;
      },
    };
  });
}

function bodyOf(result: HttpResult): unknown {
  if (!result.body) return undefined;
  try {
    return JSON.parse(result.body);
  } catch {
    return undefined;
  }
}

function projectIdOf(answer: unknown): string | undefined {
  const id = (answer as { projectId?: unknown } | undefined)?.projectId;
  return typeof id === 'string' ? id : undefined;
}
