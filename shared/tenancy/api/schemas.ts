import { pageOf } from '../../http/pagination.ts';
import { isoTime } from '../../http/wire-schemas.ts';
import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { ROLES } from '../access.ts';
import { PORTAL_TTL } from '../portal.ts';

/** Request and answer bodies of project keys, portal sessions and the audit log (the API reference shows them). */

export const role = withMeta(z.enum(ROLES), {
  description: '`viewer` reads; `developer` also manages integrations, bots and the API token; `admin` everything.',
});

export const createKeyBody = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  role,
});

export const portalSessionBody = z.strictObject({
  role,
  ttlSeconds: z.optional(z.number().check(z.int(), z.gte(PORTAL_TTL.min), z.lte(PORTAL_TTL.max))),
});

export const exchangeBody = z.strictObject({
  code: z.string().check(z.minLength(1), z.maxLength(200)),
  projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});

export const managementKey = withMeta(
  z.object({
    keyId: z.string(),
    name: z.string(),
    role,
    createdAt: isoTime,
    lastUsedAt: z.optional(isoTime),
  }),
  { id: 'ManagementKey' },
);

export const createdKey = withMeta(
  z.object({
    keyId: z.string(),
    key: withMeta(z.string(), { description: 'The key (`sbm_…`), shown this once: only its hash is stored.' }),
    name: z.string(),
    role,
    createdAt: isoTime,
  }),
  { id: 'ManagementKeyCreated' },
);

export const keyPage = pageOf(managementKey, 'ManagementKeyPage', 'Project keys, in id order');

export const portalLink = withMeta(
  z.object({
    url: withMeta(z.string(), {
      description: 'Opens the console for this project; good for one use within 5 minutes.',
    }),
    expiresAt: isoTime,
  }),
  { id: 'PortalLink' },
);

export const auditEntry = withMeta(
  z.object({
    id: z.string(),
    at: isoTime,
    actor: z.object({ kind: z.enum(['admin', 'key', 'portal']), id: z.optional(z.string()) }),
    action: z.string(),
    target: z.optional(z.string()),
    requestId: z.string(),
    // Each changed field as `[before, after]`: an array of exactly two (a tuple's `prefixItems` without `items` is
    // refused by the OpenAPI linters and read poorly by client generators).
    changes: z.optional(z.record(z.string(), z.array(z.unknown()).check(z.minLength(2), z.maxLength(2)))),
  }),
  { id: 'AuditEntry' },
);

export const auditPage = pageOf(auditEntry, 'AuditPage', 'Audit entries, newest first');

export const sessionInfo = withMeta(
  z.object({
    kind: z.enum(['admin', 'key', 'portal']),
    projectId: z.optional(z.string()),
    role: z.optional(z.enum([...ROLES, 'operator'])),
    expiresAt: z.optional(isoTime),
    csrfToken: withMeta(z.optional(z.string()), {
      description: 'A portal session: send it as `x-csrf-token` on every request that changes something.',
    }),
  }),
  { id: 'Caller' },
);
