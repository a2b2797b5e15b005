import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/service.ts';
import { codeOf, openPortal } from './tenancy-support.ts';

/**
 * A portal link's code is good for one exchange within its lifetime, and refused after it. The lifetime is the
 * deployment's `PORTAL_CODE_SECONDS` (5 minutes by default): this service's is a few seconds, so the test waits
 * seconds, not minutes, for the service's clock to pass it.
 */
const CODE_SECONDS = 4;
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ threads: false, env: { PORTAL_CODE_SECONDS: String(CODE_SECONDS) } });
}, 120_000);
afterAll(async () => svc?.close());

/** A new link, and when the service's clock said it was made (its `expiresAt` less the session's lifetime). */
async function link(projectId: string) {
  const made = await svc.admin('POST', `/projects/${projectId}/portal-sessions`, {
    role: 'developer',
    ttlSeconds: 600,
  });
  expect(made.status).toBe(201);
  return { url: made.body.url as string, madeAt: Date.parse(made.body.expiresAt) - 600_000 };
}

it("refuses a link's code exchanged after its lifetime with 401 UNAUTHORIZED, and opens no session", async () => {
  const { projectId } = await svc.newProject({ name: 'Expiring links' });
  // Within its lifetime a code opens a session (what the refusal below is measured against).
  const fresh = await link(projectId);
  const opened = await openPortal(svc.baseUrl, codeOf(fresh.url));
  expect(opened.status).toBe(200);
  expect(opened.body).toMatchObject({ kind: 'portal', projectId, role: 'developer' });

  const stale = await link(projectId);
  // Wait for the moment the code's lifetime ends on the service's clock (the same machine's), and a little more.
  const endsAt = stale.madeAt + CODE_SECONDS * 1000 + 250;
  await new Promise((r) => setTimeout(r, Math.max(0, endsAt - Date.now())));
  const refused = await openPortal(svc.baseUrl, codeOf(stale.url));
  expect(refused.status).toBe(401);
  expect(refused.body).toMatchObject({ success: false, error: 'UNAUTHORIZED', requestId: expect.any(String) });
  expect(refused.setCookie).toBeNull();
  // The refusal named no reason another caller could tell apart: an unknown code gets the same message.
  const unknown = await openPortal(svc.baseUrl, `sbp_${'A'.repeat(43)}`);
  expect(unknown.status).toBe(401);
  expect(refused.body.message).toBe(unknown.body.message);
  // Refused, the code is not kept for later either: the link stays dead.
  expect((await openPortal(svc.baseUrl, codeOf(stale.url))).status).toBe(401);
});
