import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { POLL_RATE_LIMIT } from '#test/support/groups/strict.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * A poller's own rate (`POLL_RATE_LIMIT_PER_SECOND`, low in this file's group so a burst meets it on any machine):
 * past it 429 `RATE_LIMITED` with `Retry-After`, each poller with its own bucket, a bad token 401 before any count.
 */
let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

async function poller(projectId: string) {
  const res = await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'poller' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token as string;
}

const poll = (token: string) =>
  fetch(`${svc.baseUrl}/api/integration/events?limit=10`, { headers: { authorization: `Bearer ${token}` } });

describe("a poller's rate limit", () => {
  it('answers a burst past it 429 RATE_LIMITED with Retry-After; another poller and a later call pass', async () => {
    const { projectId } = await svc.newProject({ companyId: 4301 });
    const [first, second] = [await poller(projectId), await poller(projectId)];
    // The function loaded (a cold start on a loaded machine can outlast its timeout), on the other poller's bucket.
    await eventually(async () => (await poll(second)).status === 200, 60_000, 'a first poll');
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 16 }, () => poll(first)));
    const seconds = (performance.now() - started) / 1000;
    const statuses = answers.map((a) => a.status);
    const passed = statuses.filter((s) => s === 200).length;
    // A bucket of one second's worth, refilled continuously: at most that many at once, then that many a second.
    expect(passed).toBeGreaterThanOrEqual(1);
    expect(passed).toBeLessThanOrEqual(POLL_RATE_LIMIT * (1 + Math.ceil(seconds)));
    expect(statuses.filter((s) => s === 429).length, JSON.stringify(statuses)).toBe(16 - passed);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ success: false, error: 'RATE_LIMITED' });
    // Each poller has its own bucket.
    await eventually(async () => (await poll(second)).status === 200, 10_000, "the other poller's poll");
    // The bucket refills: the first poller reads again after Retry-After.
    await eventually(async () => (await poll(first)).status === 200, 10_000, 'a poll after Retry-After');
  }, 90_000);

  it('answers a token that is no poller 401 however fast it comes, never 429', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => poll('sbp_not-a-token')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(401));
  });
});
