import type { Platform } from '../kernel/platform.ts';
import { DynamoAuditLog } from './adapters/dynamo-audit-log.ts';
import { DynamoKeyStore } from './adapters/dynamo-key-store.ts';
import { DynamoPortalStore } from './adapters/dynamo-portal-store.ts';
import { auditHandlers } from './api/audit-routes.ts';
import { keyHandlers } from './api/key-routes.ts';
import { managementFunction, type ReadAhead } from './api/management-function.ts';
import type { RouteAccess } from './access.ts';
import { portalHandlers } from './api/portal-routes.ts';
import type { BoundRoute } from '../http/router.ts';
import type { ScopedIdempotency } from '../http/presets.ts';
import { makeIssuePortalLink } from './issue-portal-link.ts';
import { makeListAudit } from './list-audit.ts';
import { makeManageKeys } from './manage-keys.ts';
import { makePortalSessions } from './portal-sessions.ts';
import { makeRecordAudit } from './record-audit.ts';
import { tenancySettings } from './settings.ts';

/**
 * Project keys, portal sessions and the audit log on the deployment's table: their use cases, what serves
 * `tenancyRoutes`, and `serve`, the management function's front door that recognises callers, applies each route's
 * rule and records changes. Whether a project exists comes from the projects area, and so does the read of a
 * request's project along with its caller's key (`readAhead`).
 */
export function wireTenancy(
  platform: Pick<Platform, 'table' | 'logger'>,
  deps: {
    projectExists(projectId: string): Promise<boolean>;
    publicBaseUrl: string;
    /** The projects read ahead with a project key (one round trip for both), for the routes that read them. */
    readAhead?: ReadAhead;
  },
) {
  const settings = tenancySettings.read();
  const { table, logger } = platform;
  const portal = new DynamoPortalStore(table);
  const audit = new DynamoAuditLog(table);
  const keys = makeManageKeys({
    keys: new DynamoKeyStore(table),
    projectExists: deps.projectExists,
    touchEverySeconds: settings.MANAGEMENT_KEY_TOUCH_SECONDS,
    onTouchFailed: (cause) => logger.warn('lastUsedAt not written', { cause: String(cause) }),
  });
  const sessions = makePortalSessions({ portal });
  const issueLink = makeIssuePortalLink({
    portal,
    projectExists: deps.projectExists,
    baseUrl: deps.publicBaseUrl,
    codeSeconds: settings.PORTAL_CODE_SECONDS,
  });
  const recordAudit = makeRecordAudit({ audit });
  const handlers = {
    ...keyHandlers(keys),
    ...portalHandlers({
      issueLink,
      sessions,
      secure: deps.publicBaseUrl.startsWith('https:'),
      cookiePath: `${deps.publicBaseUrl ? new URL(deps.publicBaseUrl).pathname.replace(/\/+$/, '') : ''}/admin/v1`,
    }),
    ...auditHandlers(makeListAudit({ audit, projectExists: deps.projectExists })),
  };
  return {
    handlers,
    /** The management API's handler over every route of the function, each with its rule. */
    serve: (options: {
      adminKey: string;
      prefix: string;
      routes: readonly BoundRoute[];
      access: RouteAccess;
      idempotency: ScopedIdempotency;
    }) =>
      managementFunction({
        ...options,
        logger,
        keys,
        sessions,
        recordAudit,
        ...(deps.readAhead ? { readAhead: deps.readAhead } : {}),
      }),
  };
}
