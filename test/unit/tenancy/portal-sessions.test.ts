import { describe, expect, it } from 'vitest';
import { makeIssuePortalLink } from '#shared/tenancy/issue-portal-link.ts';
import type { PortalCode, PortalSession, PortalStore } from '#shared/tenancy/portal.ts';
import { makePortalSessions } from '#shared/tenancy/portal-sessions.ts';

/** The store in memory: a code is taken once, sessions sit beside their project's generation. */
function memoryPortal(): PortalStore {
  const codes = new Map<string, PortalCode>();
  const sessions = new Map<string, PortalSession>();
  const generations = new Map<string, number>();
  return {
    generation: async (p) => generations.get(p) ?? 0,
    endAll: async (p) => void generations.set(p, (generations.get(p) ?? 0) + 1),
    putCode: async (h, c) => void codes.set(h, c),
    takeCode: async (h) => {
      const c = codes.get(h);
      codes.delete(h);
      return c;
    },
    putSession: async (s) => void sessions.set(`${s.projectId}/${s.sessionId}`, s),
    findSession: async (p, id) => {
      const session = sessions.get(`${p}/${id}`);
      return { ...(session ? { session } : {}), generation: generations.get(p) ?? 0 };
    },
  };
}

function setup() {
  let now = Date.parse('2026-12-02T10:00:00Z');
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const portal = memoryPortal();
  const issue = makeIssuePortalLink({
    portal,
    projectExists: async (p) => p.startsWith('prj_'),
    baseUrl: 'https://sb.example.com/',
    now: clock.now,
  });
  const sessions = makePortalSessions({ portal, now: clock.now });
  const codeOf = (url: string) => new URL(url).hash.slice('#code='.length);
  return { clock, issue, sessions, codeOf };
}

describe('portal links and sessions', () => {
  it('a link starts with the base URL and carries its code in the fragment', async () => {
    const { issue } = setup();
    const link = await issue('prj_a', { role: 'viewer' });
    expect(link.url).toMatch(/^https:\/\/sb\.example\.com\/portal\?project=prj_a#code=sbp_[A-Za-z0-9_-]{43}$/);
    expect(link.expiresAt).toBe('2026-12-02T11:00:00.000Z');
    await expect(issue('nope', { role: 'viewer' })).rejects.toThrow(/No project/);
  });

  it('a code opens one session within 5 minutes, and not after', async () => {
    const { issue, sessions, codeOf, clock } = setup();
    const fresh = codeOf((await issue('prj_a', { role: 'admin', ttlSeconds: 120 })).url);
    const late = codeOf((await issue('prj_a', { role: 'admin' })).url);
    clock.advance(299_000);
    const opened = await sessions.exchange(fresh);
    expect(opened).toMatchObject({ projectId: 'prj_a', role: 'admin', expiresAt: '2026-12-02T10:06:59.000Z' });
    expect(await sessions.exchange(fresh)).toBeUndefined();
    clock.advance(2_000);
    expect(await sessions.exchange(late)).toBeUndefined();
  });

  it('a session lives until expiresAt, needs its exact secret, and ends with endAll', async () => {
    const { issue, sessions, codeOf, clock } = setup();
    const opened = (await sessions.exchange(codeOf((await issue('prj_a', { role: 'viewer', ttlSeconds: 60 })).url)))!;
    const found = await sessions.recognise(opened.cookie);
    expect(found?.session.role).toBe('viewer');
    expect(found?.csrfToken).toBe(opened.csrfToken);
    const [p, id, secret] = opened.cookie.split('.');
    expect(
      await sessions.recognise(`${p}.${id}.${secret!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`),
    ).toBeUndefined();
    expect(await sessions.recognise(`prj_b.${id}.${secret}`)).toBeUndefined();
    expect(await sessions.recognise('garbage')).toBeUndefined();
    clock.advance(60_000);
    expect(await sessions.recognise(opened.cookie)).toBeUndefined();

    const again = (await sessions.exchange(codeOf((await issue('prj_a', { role: 'viewer' })).url)))!;
    const unused = codeOf((await issue('prj_a', { role: 'viewer' })).url);
    await sessions.endAll('prj_a');
    expect(await sessions.recognise(again.cookie)).toBeUndefined();
    expect(await sessions.exchange(unused)).toBeUndefined();
  });
});
