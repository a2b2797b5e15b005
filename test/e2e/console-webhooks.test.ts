import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleBrowser, chromium, openConsoleBrowser, signIn } from '#test/console/browser.ts';
import { explainFailures } from '#test/console/explain-failures.ts';
import { ACCESSIBILITY_PROBLEMS } from '#test/console/in-page.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/events/index.ts';
import { eventually } from '#test/support/eventually.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { E2E_ATTEMPTS } from '#test/support/groups/e2e.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

// The console's webhook tools (docs/reference/webhooks.md) in Chromium against the local service: the event
// catalog, the rate limit on the webhook form, recovering failed deliveries, and the ordering, signature and filter settings with the filter tryout.
describeNeeding(chromium, 'console: event catalog, rate limit, recover', () => {
  let svc: ServiceClient;
  let ui: ConsoleBrowser;
  let page: Page;
  let receiver: TestReceiver;
  let projectId: string;

  // A failing step prints what the page showed and what the service answered meanwhile.
  explainFailures(() => ui);
  beforeAll(async () => {
    svc = await sharedService();
    receiver = await startReceiver();
    ui = await openConsoleBrowser();
    page = ui.page;
    ({ projectId } = await svc.newProject({ companyId: 7 }));
    await signIn(page, svc.baseUrl, svc.adminKey);
  });
  afterAll(async () => {
    await ui?.close();
    await receiver?.close();
    await svc?.close();
  });

  it('shows every event type with an example payload and its schema, from /openapi.json', async () => {
    await page.getByRole('link', { name: 'Event catalog' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event catalog' }).waitFor();
    const articles = page.locator('article[data-event-type]');
    await articles.first().waitFor();
    expect(await articles.evaluateAll((els) => els.map((e) => e.getAttribute('data-event-type')))).toEqual([
      ...WEBHOOK_EVENT_TYPES,
    ]);
    const sent = page.locator('article[data-event-type="message.sent"]');
    await sent.locator('summary', { hasText: 'Example payload' }).click();
    const example = JSON.parse((await sent.locator('pre').first().textContent())!);
    expect(example).toMatchObject({ type: 'message.sent', data: { status: 'sent' } });
    await sent.locator('summary', { hasText: 'Schema' }).click();
    const schema = JSON.parse((await sent.locator('pre').nth(1).textContent())!);
    expect(schema.properties.type.const).toBe('message.sent');
    expect(await page.evaluate(ACCESSIBILITY_PROBLEMS)).toEqual([]);
  });

  it('creates a webhook with a rate limit and event types picked from the catalog, then changes the limit', async () => {
    await page.goto(`${svc.baseUrl}/console/#/projects/${projectId}/integrations/new`);
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByText('Event types (all by default)').click();
    await page.getByLabel('message.delivered').check();
    await page.getByLabel('webhook.test').check();
    await page.getByLabel(/^Rate limit/).fill('5');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    const integrationId = /integrations\/([^/?]+)$/.exec(page.url())![1]!;
    const path = `/projects/${projectId}/integrations/${integrationId}`;
    expect((await svc.admin('GET', path)).body).toMatchObject({
      rateLimitPerSecond: 5,
      eventTypes: ['message.delivered', 'webhook.test'],
    });
    await page.getByLabel(/^Rate limit/).fill('');
    await page.getByRole('button', { name: 'Save rate limit' }).click();
    await page.getByText('Rate limit removed.').waitFor();
    expect((await svc.admin('GET', path)).body.rateLimitPerSecond).toBeNull();
    await page.getByLabel(/^Rate limit/).fill('0');
    await page.getByRole('button', { name: 'Save rate limit' }).click();
    // The field refuses it before any request (min 1): nothing changes.
    expect(
      await page
        .getByLabel(/^Rate limit/)
        .evaluate((input) => (input as unknown as { validity: { valid: boolean } }).validity.valid),
    ).toBe(false);
    expect((await svc.admin('GET', path)).body.rateLimitPerSecond).toBeNull();
  });

  it('recovers failed deliveries of a window: they are delivered again and the log shows it', async () => {
    let healthy = false;
    receiver.answer = () => (healthy ? 200 : 500);
    // A project of its own: the one above already has its general webhook.
    const own = (await svc.newProject({ companyId: 8 })).projectId;
    const created = await svc.admin('POST', `/projects/${own}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: `${receiver.url}/recover`,
      eventTypes: ['webhook.test'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const path = `/projects/${own}/integrations/${created.body.integrationId}`;
    await svc.admin('POST', `${path}/test`);
    await eventually(
      async () => (await svc.admin('GET', `${path}/deliveries?status=failed`)).body.items.length === 1,
      15_000,
      'a failed delivery',
    );
    healthy = true;
    await page.goto(`${svc.baseUrl}/console/#${path}`);
    await page.getByText('Recover failed deliveries').click();
    // An hour back, in the browser's own zone (datetime-local).
    const since = await page.evaluate(() => {
      const d = new Date(Date.now() - 3600_000);
      d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
      return d.toISOString().slice(0, 16);
    });
    await page.getByLabel('Since').fill(since);
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await page.getByText('1 failed delivery queued again.').waitFor();
    await eventually(
      async () => {
        const [d] = (await svc.admin('GET', `${path}/deliveries`)).body.items;
        return d.status === 'succeeded' && d.attempts.length === E2E_ATTEMPTS + 1;
      },
      15_000,
      'the recovered delivery',
    );
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await page.locator('tr[data-delivery-id]').first().textContent())!.includes('Succeeded');
      },
      10_000,
      'the log to show it',
    );
  });

  it('shows ordering, signature and public key; tries a filter on a sample event, then saves it (a bad one is refused)', async () => {
    const own = (await svc.newProject({ companyId: 9 })).projectId;
    const created = await svc.admin('POST', `/projects/${own}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: `${receiver.url}/filtered`,
      ordering: 'conversation',
      signature: 'v1a',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const path = `/projects/${own}/integrations/${created.body.integrationId}`;
    await page.goto(`${svc.baseUrl}/console/#${path}`);
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    const facts = page.locator('dl.facts');
    await facts.getByText('In order per conversation').waitFor();
    await facts.getByText('v1a (ed25519)').waitFor();
    await facts.getByText(created.body.publicKey).waitFor();

    const filter = page.getByLabel('Filter (JSON)');
    const verdict = page.locator('form[aria-label="Filter"] p[role="status"]').first();
    await filter.fill('{ "all": [ { "field": "channel.type", "op": "eq", "value": "whatsapp" } ] }');
    await page.getByRole('button', { name: 'Try on the sample' }).click();
    expect(await verdict.textContent()).toBe('Matches: this event would be delivered.');
    await filter.fill('{ "all": [ { "field": "channel.type", "op": "in", "value": ["sms", "email"] } ] }');
    await page.getByRole('button', { name: 'Try on the sample' }).click();
    expect(await verdict.textContent()).toBe('Does not match: this event would not be delivered.');
    await filter.fill('{ "all": [ { "field": "headers.x", "op": "eq", "value": 1 } ] }');
    await page.getByRole('button', { name: 'Try on the sample' }).click();
    expect(await verdict.textContent()).toMatch(/^filter\.all\.0\.field: /);
    // Saving it anyway: the API answers 400, the page shows it, and the filter stays unset.
    const refused = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith(path));
    await page.getByRole('button', { name: 'Save filter' }).click();
    expect((await refused).status()).toBe(400);
    await page.locator('form[aria-label="Filter"] [role="alert"]').first().waitFor();
    expect((await svc.admin('GET', path)).body.filter).toBeNull();

    await filter.fill('{ "all": [ { "field": "data.from", "op": "prefix", "value": "+55" } ] }');
    await page.getByRole('button', { name: 'Save filter' }).click();
    await page.getByText('Filter saved.').waitFor();
    expect((await svc.admin('GET', path)).body.filter).toEqual({
      all: [{ field: 'data.from', op: 'prefix', value: '+55' }],
    });
    expect(await page.evaluate(ACCESSIBILITY_PROBLEMS)).toEqual([]);
  });
});
