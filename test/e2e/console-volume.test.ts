import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleBrowser, chromium, expectText, openConsoleBrowser, signIn } from '#test/console/browser.ts';
import { explainFailures } from '#test/console/explain-failures.ts';
import { ACCESSIBILITY_PROBLEMS } from '#test/console/in-page.ts';
import { eventually } from '#test/support/eventually.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

// A channel's volume panel: a message scheduled through the API is listed and canceled in the console, and a batch's
// items show as sent and refused once they left.
describeNeeding(chromium, 'console: scheduled messages and batches', () => {
  let svc: ServiceClient;
  let ui: ConsoleBrowser;
  let page: Page;

  // A failing step prints what the page showed and what the service answered meanwhile.
  explainFailures(() => ui);
  beforeAll(async () => {
    svc = await sharedService();
    ui = await openConsoleBrowser();
    page = ui.page;
    await signIn(page, svc.baseUrl, svc.adminKey);
  });
  afterAll(async () => {
    await ui?.close();
    await svc?.close();
  });

  const integrationApi = async (token: string, path: string, body?: unknown, method = 'POST') => {
    const res = await fetch(`${svc.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('lists a scheduled message and cancels it; shows a batch with its sent and refused items', async () => {
    const { projectId } = await svc.newProject({ companyId: 4343 });
    const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'Campaigns',
      address: '+15005550077',
      pace: { perSecond: 20 },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    const token = (
      await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'custom',
        channelId: channel.body.channelId,
      })
    ).body.token as string;
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await integrationApi(token, '/api/integration/generic', {
      to: '+5511988881111',
      body: 'See you tomorrow',
      sendAt,
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(202);
    const messageId = scheduled.body.messageId as string;
    const batch = await integrationApi(token, '/api/integration/generic/batch', {
      messages: [
        { to: '+5511988881112', body: 'one' },
        { to: 'not a number', body: 'two' },
        { to: '+5511988881113', body: 'three' },
      ],
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    expect(batch.body.items.map((i: any) => i.status)).toEqual(['queued', 'refused', 'queued']);

    await page.goto(`${svc.baseUrl}/console/#/projects/${projectId}/channels`);
    const panel = page.getByRole('region', { name: 'Scheduled messages and batches' });
    await expectText(panel, 'Pace: 20 messages a second at most.');
    const row = panel
      .getByRole('table', { name: 'Scheduled messages' })
      .getByRole('row')
      .filter({ hasText: messageId });
    await expectText(row, '+5511988881111');
    expect(await page.evaluate(ACCESSIBILITY_PROBLEMS)).toEqual([]);

    await row.getByRole('button', { name: 'Cancel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this message?' });
    await dialog.getByRole('button', { name: 'Cancel message' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Message ${messageId} canceled.` })
      .waitFor();
    await expectText(panel, 'Nothing scheduled.');
    const after = await integrationApi(token, `/api/integration/messages/${messageId}`, undefined, 'GET');
    expect(after.body.status).toBe('canceled');

    // The batch's two messages leave at the channel's pace: the panel shows them sent once Refresh finds them so.
    const batchRow = panel
      .getByRole('table', { name: 'Batches' })
      .getByRole('row')
      .filter({ hasText: batch.body.batchId });
    await eventually(
      async () => {
        await panel.getByRole('button', { name: 'Refresh' }).click();
        return (await batchRow.getByRole('progressbar', { name: '2 of 3 sent' }).count()) ? true : undefined;
      },
      60_000,
      'the batch shown sent',
    );
    await expectText(batchRow, '0 scheduled, 0 canceled, 1 refused');
  }, 120_000);
});
