import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRouteAccess } from '#functions/admin/access.ts';
import { adminRouteTable } from '#functions/admin/routes.ts';
import type { Access, Role } from '#shared/tenancy/index.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { openPortal, type PortalCookie } from './tenancy-support.ts';

/**
 * The authorization matrix, derived from the management API's route table: every route × every kind of caller, and
 * the status each must get. The expected status comes from the route's rule (functions/admin/access.ts); a route
 * the table gains without a rule fails here (and does not compile).
 */
let svc: ServiceClient;
let mine: string;
let theirs: string;
const keys: Partial<Record<Role | 'other' | 'revoked', string>> = {};

beforeAll(async () => {
  svc = await sharedService();
  mine = (await svc.newProject({ name: 'Matrix mine' })).projectId;
  theirs = (await svc.newProject({ name: 'Matrix theirs' })).projectId;
  for (const role of ['viewer', 'developer', 'admin'] as const) {
    keys[role] = (await svc.admin('POST', `/projects/${mine}/keys`, { name: role, role })).body.key;
  }
  keys.other = (await svc.admin('POST', `/projects/${theirs}/keys`, { name: 'theirs', role: 'admin' })).body.key;
  const revoked = await svc.admin('POST', `/projects/${mine}/keys`, { name: 'gone', role: 'admin' });
  keys.revoked = revoked.body.key;
  expect((await svc.admin('DELETE', `/projects/${mine}/keys/${revoked.body.keyId}`)).status).toBe(204);
});
afterAll(async () => svc?.close());

type Caller =
  | { kind: 'operator' }
  | { kind: 'key'; role: Role }
  | { kind: 'otherProjectKey' }
  | { kind: 'revokedKey' }
  | { kind: 'reusedCode' }
  | { kind: 'tamperedCookie' }
  | { kind: 'portal'; role: Role; csrf: boolean };

const CALLERS: Caller[] = [
  { kind: 'operator' },
  { kind: 'key', role: 'viewer' },
  { kind: 'key', role: 'developer' },
  { kind: 'key', role: 'admin' },
  { kind: 'otherProjectKey' },
  { kind: 'revokedKey' },
  { kind: 'reusedCode' },
  { kind: 'tamperedCookie' },
  { kind: 'portal', role: 'viewer', csrf: true },
  { kind: 'portal', role: 'admin', csrf: true },
  { kind: 'portal', role: 'admin', csrf: false },
];

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2 };
const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Refused by authorization: the statuses a caller allowed to call a route never gets for being who it is. */
const REFUSED = [401, 403];

/** What the matrix expects: a status, or `allowed` (the route ran: anything but a refusal of the caller). */
function expected(caller: Caller, rule: Access | 'anyone', method: string, hasProject: boolean): number | 'allowed' {
  if (rule === 'anyone') return 'allowed';
  switch (caller.kind) {
    case 'operator':
      return 'allowed';
    case 'revokedKey':
    case 'reusedCode':
    case 'tamperedCookie':
      return 401;
    case 'otherProjectKey':
      if (hasProject) return 404;
      return rule.role === 'operator' ? 403 : 'allowed';
    case 'portal':
      if (!caller.csrf && CHANGES.has(method)) return 403;
      return rule.role === 'operator' || RANK[caller.role] < RANK[rule.role] ? 403 : 'allowed';
    case 'key':
      return rule.role === 'operator' || RANK[caller.role] < RANK[rule.role] ? 403 : 'allowed';
  }
}

async function headersFor(caller: Caller): Promise<Record<string, string>> {
  switch (caller.kind) {
    case 'operator':
      return { authorization: `Bearer ${svc.adminKey}` };
    case 'key':
      return { authorization: `Bearer ${keys[caller.role]}` };
    case 'otherProjectKey':
      return { authorization: `Bearer ${keys.other}` };
    case 'revokedKey':
      return { authorization: `Bearer ${keys.revoked}` };
    case 'reusedCode': {
      // The link's code was already used: the second exchange gets no cookie, and the request carries none.
      const link = await svc.admin('POST', `/projects/${mine}/portal-sessions`, { role: 'admin' });
      const code = new URL(link.body.url).hash.slice('#code='.length);
      await openPortal(svc.baseUrl, code);
      const again = await openPortal(svc.baseUrl, code);
      expect(again.status).toBe(401);
      return again.cookie ? { cookie: again.cookie } : {};
    }
    case 'tamperedCookie': {
      const session = await portalFor('admin');
      const [project, id, secret] = session.cookie.slice(session.cookie.indexOf('=') + 1).split('.');
      const flipped = `${secret!.slice(0, -1)}${secret!.endsWith('A') ? 'B' : 'A'}`;
      return { cookie: `sb_portal=${project}.${id}.${flipped}`, 'x-csrf-token': session.csrfToken };
    }
    case 'portal': {
      const session = await portalFor(caller.role);
      return { cookie: session.cookie, ...(caller.csrf ? { 'x-csrf-token': session.csrfToken } : {}) };
    }
  }
}

async function portalFor(role: Role): Promise<PortalCookie> {
  const link = await svc.admin('POST', `/projects/${mine}/portal-sessions`, { role });
  expect(link.status).toBe(201);
  const opened = await openPortal(svc.baseUrl, new URL(link.body.url).hash.slice('#code='.length));
  expect(opened.status).toBe(200);
  return opened as PortalCookie;
}

function pathOf(template: string, projectId: string): string {
  return template.replace('{projectId}', projectId).replace(/\{(\w+)\}/g, (_, name: string) => `${name}-x`);
}

function bodyOf(route: { path: string; body?: unknown }): { body?: string; type?: string } {
  if (route.path === '/portal/exchange')
    return { body: JSON.stringify({ code: 'sbp_not-a-code' }), type: 'application/json' };
  if (route.body === 'raw') return { body: 'hello', type: 'text/plain' };
  if (route.body) return { body: '{}', type: 'application/json' };
  return {};
}

const names = Object.keys(adminRouteTable) as (keyof typeof adminRouteTable)[];

describe('authorization matrix', () => {
  it('has a rule for every route of the table', () => {
    const missing = names.filter((name) => (adminRouteAccess as Record<string, unknown>)[name] === undefined);
    expect(missing).toEqual([]);
  });

  for (const name of names) {
    it(`${adminRouteTable[name].method} ${adminRouteTable[name].path}`, async () => {
      const route = adminRouteTable[name];
      const rule = adminRouteAccess[name];
      const rows: string[] = [];
      for (const caller of CALLERS) {
        const hasProject = route.path.includes('{projectId}');
        const want = expected(caller, rule, route.method, hasProject);
        const { body, type } = bodyOf(route);
        const response = await fetch(`${svc.baseUrl}/admin/v1${pathOf(route.path, mine)}`, {
          method: route.method,
          headers: { ...(await headersFor(caller)), ...(type ? { 'content-type': type } : {}) },
          ...(body === undefined ? {} : { body }),
        });
        const got = response.status;
        const answer = await response.text();
        const ok =
          want === 'allowed'
            ? !REFUSED.includes(got) || (route.path === '/portal/exchange' && got === 401)
            : got === want;
        if (!ok) rows.push(`${JSON.stringify(caller)}: want ${want}, got ${got} ${answer.slice(0, 160)}`);
      }
      expect(rows).toEqual([]);
    });
  }
});
