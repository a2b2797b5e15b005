import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleBrowser, chromium, expectText, openConsoleBrowser } from '#test/console/browser.ts';
import { explainFailures } from '#test/console/explain-failures.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

// Portal links in Debian's Chromium: the console a customer's people open from the operator's app, for one project
// and one role, and what they see there.
describeNeeding(chromium, 'console: portal links', () => {
  let svc: ServiceClient;
  let ui: ConsoleBrowser;
  let page: Page;

  // A failing step prints what the page showed and what the service answered meanwhile.
  explainFailures(() => ui);
  beforeAll(async () => {
    svc = await sharedService();
    ui = await openConsoleBrowser();
    page = ui.page;
  });
  afterAll(async () => {
    await ui?.close();
    await svc?.close();
  });

  async function link(projectId: string, role: string): Promise<string> {
    const made = await svc.admin('POST', `/projects/${projectId}/portal-sessions`, { role });
    expect(made.status).toBe(201);
    return made.body.url;
  }

  /** A fresh browser context: a portal session's cookie is the context's own. */
  async function fresh(): Promise<Page> {
    const context = await ui.browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    return context.newPage();
  }

  it('opens the one project, paints within 1 s, and is framable only by the allowed origins', async () => {
    const { projectId } = await svc.newProject({ name: 'Portal project' });
    const other = await svc.newProject({ name: 'Someone else' });
    const url = await link(projectId, 'developer');
    expect(url.startsWith(svc.baseUrl)).toBe(true);
    const response = await page.goto(url);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    await expectText(page.locator('.project-line'), 'Portal project');
    expect(new URL(page.url()).hash).not.toContain('code=');
    // No picker, and another project's address shows this one.
    expect(await page.getByRole('link', { name: 'Projects' }).count()).toBe(0);
    // The paint budget is the best of up to three loads: the suite shares two cores with five other files, and one
    // load caught behind them (1,284 ms once at load 12.7) says nothing about the page; three slow loads do.
    const paints: number[] = [];
    while (paints.length < 3 && !paints.some((p) => p < 1000)) {
      await page.goto(`${new URL(url).origin}/portal?project=${projectId}#/projects/${other.projectId}/integrations`);
      await expectText(page.locator('.project-line'), 'Portal project');
      paints.push(
        await page.evaluate(
          () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.POSITIVE_INFINITY,
        ),
      );
    }
    expect(Math.min(...paints), `first paints: ${paints.join(', ')} ms`).toBeLessThan(1000);

    await svc.admin('PATCH', `/projects/${projectId}`, { portal: { allowedOrigins: ['https://app.acme.example'] } });
    const framable = await fetch(`${svc.baseUrl}/portal?project=${projectId}`);
    expect(framable.headers.get('content-security-policy')).toContain('frame-ancestors https://app.acme.example');
    expect(framable.headers.get('x-frame-options')).toBeNull();
  });

  it('shows a viewer no write action anywhere', async () => {
    const { projectId } = await svc.newProject({ name: 'Read only' });
    const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'SMS',
      address: '+15005550006',
    });
    const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'http://127.0.0.1:9/hook',
    });
    await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Helper', instructions: 'Be brief.' });
    expect(channel.status).toBe(201);
    const viewer = await fresh();
    await viewer.goto(await link(projectId, 'viewer'));
    await viewer.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    expect(await viewer.locator('nav.tabs a').allTextContents()).toEqual([
      'Integrations',
      'API token & credits',
      'Channels',
      'Bots',
    ]);
    const base = `#/projects/${projectId}`;
    const screens = [
      ['integrations', 'Integrations'],
      [`integrations/${webhook.body.integrationId}`, /Webhook|Integration/],
      ['api-token', /API token/],
      ['channels', 'Channels'],
      ['bots', 'Bots'],
    ] as const;
    for (const [screen, heading] of screens) {
      await viewer.evaluate((hash) => ((globalThis as any).location.hash = hash), `${base}/${screen}`);
      await viewer.getByRole('heading', { level: 1, name: heading }).first().waitFor();
      await viewer.waitForLoadState('networkidle');
      const forms = await viewer.locator('main form:not([method="dialog"]):not([data-read])').count();
      const buttons = (await viewer.locator('main button:visible:not(form[data-read] button)').allTextContents()).map(
        (t) => t.trim(),
      );
      expect({ screen, forms }).toEqual({ screen, forms: 0 });
      expect(
        buttons.filter((b) => !/^(Refresh|Update chart|Load more.*|Load older.*|Older entries|Copy)$/.test(b)),
      ).toEqual([]);
      expect(await viewer.getByRole('link', { name: 'New integration' }).count()).toBe(0);
    }
    await viewer.context().close();
  });

  it('shows in the audit log a change made through the API', async () => {
    const { projectId } = await svc.newProject({ name: 'Audited' });
    const key = await svc.admin('POST', `/projects/${projectId}/keys`, { name: 'deploy script', role: 'developer' });
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Helper', instructions: 'Be brief.' });
    const patched = await fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}/bots/${bot.body.botId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key.body.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ temperature: 0.3 }),
    });
    expect(patched.status).toBe(200);
    const developer = await fresh();
    await developer.goto(await link(projectId, 'developer'));
    await developer.getByRole('link', { name: 'Audit log' }).click();
    await developer.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const row = developer.locator('tr', { hasText: 'PATCH /admin/v1/projects/{projectId}/bots/{botId}' });
    await expectText(row, `Key ${key.body.keyId}`);
    await expectText(row, 'temperature: — → 0.3');
    await developer.context().close();
  });

  it('answers a used, tampered or other-project link with the expired page, and no session', async () => {
    const a = await svc.newProject();
    const b = await svc.newProject();
    const used = await link(a.projectId, 'admin');
    const first = await fresh();
    await first.goto(used);
    await first.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    await first.context().close();
    const tampered = (await link(a.projectId, 'admin')).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const otherProject = (await link(a.projectId, 'admin')).replace(`project=${a.projectId}`, `project=${b.projectId}`);
    for (const url of [used, tampered, otherProject]) {
      const visitor = await fresh();
      await visitor.goto(url);
      await visitor.getByRole('heading', { level: 1, name: 'This link has expired' }).waitFor();
      const session = await visitor.evaluate(async () => (await fetch('/admin/v1/session')).status);
      expect(session).toBe(401);
      await visitor.context().close();
    }
  });
  /** The operator's app: a page on an origin of its own whose only content is an iframe of `?src`. */
  async function operatorApp(): Promise<{ origin: string; server: Server }> {
    const server = createServer((req, res) => {
      const src = new URL(req.url ?? '/', 'http://app').searchParams.get('src') ?? 'about:blank';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><title>Operator app</title><h1>Operator app</h1>` +
          `<iframe title="Integrations" src="${src.replaceAll('"', '&quot;')}" width="1200" height="800"></iframe>`,
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  it('embedded in a page of another origin: the console when the project allows that origin, nothing otherwise', async () => {
    const { projectId } = await svc.newProject({ name: 'Embedded project' });
    const allowed = await operatorApp();
    const stranger = await operatorApp();
    try {
      expect(allowed.origin).not.toBe(new URL(svc.baseUrl).origin);
      const set = await svc.admin('PATCH', `/projects/${projectId}`, { portal: { allowedOrigins: [allowed.origin] } });
      expect(set.status).toBe(200);

      // The allowed app: the console paints inside the frame, on the one project, and its session works there.
      const inApp = await fresh();
      await inApp.goto(`${allowed.origin}/?src=${encodeURIComponent(await link(projectId, 'developer'))}`);
      const frame = inApp.frameLocator('iframe');
      // A loaded machine may take a while to boot a fresh browser context's first frame.
      await frame.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor({ timeout: 30_000 });
      await expectText(frame.locator('.project-line'), 'Embedded project');
      expect(await frame.getByRole('link', { name: 'Projects' }).count()).toBe(0);
      await inApp.getByRole('heading', { name: 'Operator app' }).waitFor();
      await inApp.context().close();

      // Another origin: the browser refuses to frame the portal (frame-ancestors): no console, no session.
      const elsewhere = await fresh();
      const refused = new Promise<string>((resolve) =>
        elsewhere.on('console', (m) => /frame-ancestors/.test(m.text()) && resolve(m.text())),
      );
      await elsewhere.goto(`${stranger.origin}/?src=${encodeURIComponent(await link(projectId, 'developer'))}`);
      expect(await refused).toContain('Content Security Policy');
      const framed = elsewhere.frames().find((f) => f !== elsewhere.mainFrame())!;
      expect(framed.url()).not.toContain('/portal');
      expect(await elsewhere.frameLocator('iframe').getByRole('heading', { name: 'Integrations' }).count()).toBe(0);
      await elsewhere.context().close();
    } finally {
      allowed.server.close();
      stranger.server.close();
    }
  }, 90_000);
});
