import { describe, expect, it } from 'vitest';
import { handler as fallback } from '#functions/fallback/handler.ts';
import { matchRoute } from '#shared/contract/route-match.ts';
import { fallbackFunction, routes } from '#shared/contract/routes.ts';
import type { ProxyHandler } from '#local/gateway.ts';
import { listenGateway } from '#test/support/gateway.ts';

/**
 * `GET /local/aws` is the local runner's own answer (local/http-server.ts), never a route of the API: on AWS the path
 * reaches the catch-all and the fallback function, which answers 404 as for any unknown path.
 */
describe('/local/aws on AWS', () => {
  it('is no route of the API: nothing under /local is in the route table', () => {
    expect(routes.filter((r) => r.path === '/local' || r.path.startsWith('/local/'))).toEqual([]);
    expect(matchRoute(routes, 'GET', '/local/aws').kind).toBe('none');
  });

  it('reaches the fallback function, which answers 404 NOT_FOUND', async () => {
    // The gateway as API Gateway routes a deployment: no local routes, the catch-all to the fallback function.
    const gateway = await listenGateway({ handlers: { [fallbackFunction]: fallback as unknown as ProxyHandler } });
    try {
      const response = await fetch(`${gateway.base}/local/aws`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: string }).error).toBe('NOT_FOUND');
    } finally {
      await gateway.close();
    }
  });
});
