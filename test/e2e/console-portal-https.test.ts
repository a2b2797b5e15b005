import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Frame } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleBrowser, chromium, expectText, openConsoleBrowser } from '#test/console/browser.ts';
import { explainFailures } from '#test/console/explain-failures.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { selfSignedCertificate } from '#test/support/self-signed.ts';
import { startTestService, type TestService } from '#test/support/service.ts';

/**
 * The console embedded across sites, as on AWS: the service behind HTTPS (its PUBLIC_BASE_URL an `https:` address,
 * so the portal's cookie is `Secure; SameSite=None; Partitioned`) on `127.0.0.1`, the operator's app on another
 * site (`localhost`), both over TLS with a certificate this test makes (the browser ignores that no CA signed it).
 * The TLS front forwards to the local service's HTTP port, as API Gateway terminates TLS before the functions.
 */
const tls = selfSignedCertificate();

/** An HTTPS server on 127.0.0.1 and a free port, answering with `handle`. */
async function httpsServer(handle: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(tls, handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The operator's app on `https://localhost:<port>`: a page whose only content is an iframe of `?src`. */
async function operatorApp(): Promise<{ origin: string; server: Server }> {
  const { server, port } = await httpsServer((req, res) => {
    const src = new URL(req.url ?? '/', 'https://app').searchParams.get('src') ?? 'about:blank';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Operator app</title><h1>Operator app</h1>` +
        `<iframe title="Integrations" src="${src.replaceAll('"', '&quot;')}" width="1200" height="800"></iframe>`,
    );
  });
  return { origin: `https://localhost:${port}`, server };
}

describeNeeding(chromium, 'console: a portal link embedded by another site over HTTPS', () => {
  let svc: TestService;
  let front: Server;
  let ui: ConsoleBrowser;
  const contexts: BrowserContext[] = [];

  // A failing step prints what the page showed and what the service answered meanwhile.
  explainFailures(() => ui);
  beforeAll(async () => {
    let backend = '';
    const started = await httpsServer((req, res) => {
      const forwarded = httpRequest(`${backend}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forwarded.on('error', () => res.destroy());
      req.pipe(forwarded);
    });
    front = started.server;
    svc = await startTestService({
      threads: false,
      env: { PUBLIC_BASE_URL: `https://127.0.0.1:${started.port}` },
    });
    backend = svc.baseUrl;
    // The console and management functions' cold starts, before the browser's first frame waits on them.
    await (await fetch(`${svc.baseUrl}/portal?project=prj_none`)).text();
    await svc.admin('GET', '/projects?limit=1');
    ui = await openConsoleBrowser();
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await ui?.close();
    front?.close();
    await svc?.close();
  });

  /** A fresh browser context that accepts the test's certificate: a portal session's cookie is the context's own. */
  async function fresh() {
    const context = await ui.browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    return context.newPage();
  }

  async function link(projectId: string, role: string): Promise<string> {
    const made = await svc.admin('POST', `/projects/${projectId}/portal-sessions`, { role });
    expect(made.status).toBe(201);
    expect(made.body.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/portal\?/);
    return made.body.url;
  }

  /** Calls the management API from inside the frame, as the console's own scripts do (the cookie goes by itself). */
  function fromFrame(frame: Frame, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
    return frame.evaluate(
      async ({ method, path, headers, body }) => {
        const answer = await fetch(path, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: answer.status, body: (await answer.json().catch(() => undefined)) as any };
      },
      { method, path, headers, body },
    );
  }

  it('works in a frame of an allowed site (Secure, SameSite=None, Partitioned), and is refused elsewhere', async () => {
    const { projectId } = await svc.newProject({ name: 'Embedded across sites' });
    const allowed = await operatorApp();
    const stranger = await operatorApp();
    try {
      const set = await svc.admin('PATCH', `/projects/${projectId}`, { portal: { allowedOrigins: [allowed.origin] } });
      expect(set.status).toBe(200);

      // The allowed app: the console paints inside the frame, on the one project, and the session holds there.
      const inApp = await fresh();
      await inApp.goto(`${allowed.origin}/?src=${encodeURIComponent(await link(projectId, 'developer'))}`);
      const frame = inApp.frameLocator('iframe');
      await frame.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor({ timeout: 45_000 });
      await expectText(frame.locator('.project-line'), 'Embedded across sites');
      const framed = inApp.frames().find((f) => f !== inApp.mainFrame())!;
      expect(new URL(framed.url()).origin).not.toBe(allowed.origin);

      // The cookie the exchange set: Secure, SameSite=None, in the allowed site's partition only.
      const cookies = await inApp.context().cookies();
      const session = cookies.find((c) => c.name === 'sb_portal');
      expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'None' });
      expect(session?.partitionKey).toBe('https://localhost');

      // The frame's own requests carry the session across sites: a read, and a change with its CSRF token.
      const who = await fromFrame(framed, 'GET', '/admin/v1/session');
      expect(who.status).toBe(200);
      expect(who.body).toMatchObject({ kind: 'portal', projectId, role: 'developer' });
      const bots = `/admin/v1/projects/${projectId}/bots`;
      const refused = await fromFrame(framed, 'POST', bots, {}, { name: 'No token', instructions: 'Be brief.' });
      expect(refused.status).toBe(403);
      const made = await fromFrame(
        framed,
        'POST',
        bots,
        { 'x-csrf-token': who.body.csrfToken },
        { name: 'Made in the frame', instructions: 'Be brief.' },
      );
      expect(made.status).toBe(201);
      const listed = await svc.admin('GET', `/projects/${projectId}/bots`);
      expect(listed.body.items.map((b: { name: string }) => b.name)).toEqual(['Made in the frame']);

      // Another origin: the browser refuses to frame the portal (frame-ancestors): no console, no session.
      const elsewhere = await fresh();
      const blocked = new Promise<string>((resolve) =>
        elsewhere.on('console', (m) => /frame-ancestors/.test(m.text()) && resolve(m.text())),
      );
      await elsewhere.goto(`${stranger.origin}/?src=${encodeURIComponent(await link(projectId, 'developer'))}`);
      expect(await blocked).toContain('Content Security Policy');
      const strangerFrame = elsewhere.frames().find((f) => f !== elsewhere.mainFrame())!;
      expect(strangerFrame.url()).not.toContain('/portal');
      expect(await elsewhere.frameLocator('iframe').getByRole('heading', { name: 'Integrations' }).count()).toBe(0);
      expect((await elsewhere.context().cookies()).find((c) => c.name === 'sb_portal')).toBeUndefined();
    } finally {
      allowed.server.close();
      stranger.server.close();
    }
  }, 120_000);
});
