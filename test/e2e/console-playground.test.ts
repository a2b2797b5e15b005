import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleBrowser, expectText, chromium, openConsoleBrowser, PHONE, signIn } from '#test/console/browser.ts';
import { explainFailures } from '#test/console/explain-failures.ts';
import { SIDEWAYS_OVERFLOW } from '#test/console/in-page.ts';
import { eventually } from '#test/support/eventually.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { E2E_ATTEMPTS } from '#test/support/groups/e2e.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { type SharedModelDouble, sharedModelDouble } from '#test/support/model-double.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

// The console's "try and see" screens in Chromium against the whole local service: the bot playground (streamed
// through the OpenAI-format route, from a model double that streams slowly), the search tester, the webhook health
// chart and the credit use chart.
describeNeeding(chromium, 'console playground, search tester and charts', () => {
  let model: SharedModelDouble;
  let svc: ServiceClient;
  let receiver: TestReceiver;
  let ui: ConsoleBrowser;
  let page: Page;
  let projectId = '';
  let token = '';
  let botId = '';
  let webhookId = '';

  // A failing step prints what the page showed and what the service answered meanwhile.
  explainFailures(() => ui);
  beforeAll(async () => {
    svc = await sharedService();
    model = sharedModelDouble();
    receiver = await startReceiver();
    ui = await openConsoleBrowser();
    page = ui.page;

    // One credit: the first answer spends it, the next request is refused with 402.
    ({ projectId, token } = await svc.newProject({ name: 'Playground test', monthlyBotCredits: 1 }));
    botId = (
      await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Store', instructions: 'You are the store bot.' })
    ).body.botId;
    const files: Record<string, string> = {
      'horarios.md': '# Horários\n\nA loja abre às 9h e fecha às 18h de segunda a sábado.',
      'trocas.txt': 'Trocas em até 30 dias com a nota fiscal; a loja troca de segunda a sábado.',
    };
    for (const [fileName, body] of Object.entries(files))
      expect((await svc.putKnowledge(projectId, botId, fileName, body)).status).toBe(202);
    await svc.knowledgeReady(projectId, botId, 2);
    await signIn(page, svc.baseUrl, svc.adminKey);
  }, 90_000);
  afterAll(async () => {
    await ui?.close();
    await receiver?.close();
    await svc?.close();
  });

  const base = () => `/projects/${projectId}`;

  it('playground: the answer streams in word by word, then shows its sources, tokens, the credit spent and the balance', async () => {
    await page.goto(`${svc.baseUrl}/console/#${base()}/bots`);
    await page.getByRole('heading', { level: 2, name: 'Playground' }).waitFor();
    await page.getByLabel('Project API token (kept in this tab only)').fill(token);
    const asked = `A loja abre de segunda a sábado? #drip=200 ${Math.random().toString(36).slice(2, 10)}`;
    await page.getByLabel('Message').fill(asked);
    await page.getByRole('button', { name: 'Send' }).click();

    // Sample the answer while it streams: it must grow through several partial texts before it is complete.
    const seen = new Set<string>();
    const streaming = page.getByTestId('streaming-answer');
    const expected = `Bot: Echo: ${asked}`;
    await eventually(
      async () => {
        // allTextContents does not wait: the streaming line may be replaced by the reply between two calls.
        for (const text of await streaming.allTextContents()) seen.add(text.trim());
        return (await page.getByTestId('playground-reply').count()) > 0;
      },
      20_000,
      'streamed answer',
    );
    const partial = [...seen].filter((t) => t && t !== expected);
    expect(partial.length, `partial answers seen: ${JSON.stringify([...seen])}`).toBeGreaterThanOrEqual(3);
    for (const text of partial) expect(expected.startsWith(text)).toBe(true);
    await expectText(page.getByRole('list', { name: 'Conversation' }).getByRole('listitem').last(), expected, {
      exact: true,
    });

    await expectText(page.getByTestId('playground-fontes'), 'horarios.md');
    await expectText(page.getByTestId('playground-tokens'), /^1\d in, \d+ out \(\d+ total\)$/);
    await expectText(page.getByTestId('playground-spent'), '1', { exact: true });
    await expectText(page.getByTestId('playground-balance'), '0', { exact: true });
    expect(await svc.botBalance(projectId)).toBe(0);
    // The upstream call was streamed: the console asked for a stream through the public route.
    expect((await model.find(asked)).at(-1)!.body.stream).toBe(true);

    // The token lives in this tab's sessionStorage only.
    const stored = await page.evaluate(() => ({
      session: JSON.stringify({ ...sessionStorage }),
      local: JSON.stringify({ ...localStorage }),
    }));
    expect(stored.session).toContain(token);
    expect(stored.local).not.toContain(token);
  });

  it('playground: with no credits left, a clear 402 message and nothing charged', async () => {
    await page.getByLabel('Message').fill('And on Sundays?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expectText(page.getByRole('alert'), 'No bot credits left this month');
    expect(await svc.botBalance(projectId)).toBe(0);
    // The question stays in the box, ready to send again after a grant.
    expect(await page.getByLabel('Message').inputValue()).toBe('And on Sundays?');
  });

  it('search tester: excerpts with file and score; include and exclude patterns change which files come back', async () => {
    const files = page.getByTestId('excerpt-file');
    const search = async (include: string, exclude: string) => {
      await page.getByLabel('Query').fill('a loja abre de segunda a sábado');
      await page.getByLabel('Only files matching (comma-separated, % matches anything)').fill(include);
      await page.getByLabel('Leave out files matching').fill(exclude);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
    };
    await search('', '');
    await eventually(async () => (await files.count()) === 2, 10_000, 'two files');
    expect((await files.allTextContents()).sort()).toEqual(['horarios.md', 'trocas.txt']);
    await expectText(page.getByTestId('excerpt').first(), /score 0\.\d{3}|score 1\.000/);
    await expectText(page.getByTestId('excerpt').filter({ hasText: 'horarios.md' }), 'A loja abre às 9h');

    await search('troc%', '');
    await expectText(files, ['trocas.txt']);
    await search('', '%.TXT');
    await expectText(files, ['horarios.md']);
    await search('%.md', 'hor%');
    await expectText(page.getByRole('status').filter({ hasText: 'excerpts found' }), '0 excerpts found.');
  });

  it('webhook health: after failing and succeeding deliveries, the chart and the success rate equal the delivery log', async () => {
    // Every third test event to arrive fails (both its attempts); the others succeed.
    const seen: string[] = [];
    receiver.answer = (d) => {
      const eventId = String(d.json?.id);
      if (!seen.includes(eventId)) seen.push(eventId);
      return (seen.indexOf(eventId) + 1) % 3 === 0 ? 500 : 200;
    };
    const created = await svc.admin('POST', `${base()}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: `${receiver.url}/health`,
    });
    webhookId = created.body.integrationId;
    for (let sent = 0; sent < 6; sent++)
      expect((await svc.admin('POST', `${base()}/integrations/${webhookId}/test`)).status).toBe(202);
    type Attempt = { statusCode?: number };
    const log = await eventually(
      async () => {
        const items = (await svc.admin('GET', `${base()}/integrations/${webhookId}/deliveries?limit=100`)).body
          .items as { status: string; attempts: Attempt[] }[];
        return items.length === 6 && items.every((d) => d.status !== 'pending') ? items : undefined;
      },
      30_000,
      'deliveries final',
    );
    const attempts = log.flatMap((d) => d.attempts);
    const ok = attempts.filter((a) => a.statusCode !== undefined && a.statusCode < 300).length;
    const failed = attempts.length - ok;
    expect(ok).toBe(4);
    expect(failed).toBe(2 * E2E_ATTEMPTS); // two failing deliveries, every attempt failed
    const rate = Math.round((100 * ok) / (ok + failed));

    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations/${webhookId}`);
    const chart = page.getByTestId('health-chart');
    await chart.waitFor();
    await expect(chart.getByRole('img', { name: /Delivery attempts per hour/ }).count()).resolves.toBe(1);
    await chart.getByText('Show the numbers').click();
    const column = async (series: string) =>
      (await chart.locator(`td[data-series="${series}"]`).allTextContents()).reduce((sum, t) => sum + Number(t), 0);
    expect(await chart.locator('tbody tr').count()).toBe(24);
    expect(await column('Succeeded')).toBe(ok);
    expect(await column('Failed')).toBe(failed);
    await expectText(page.getByTestId('health-summary'), `${ok} succeeded, ${failed} failed · success rate ${rate} %`);
    // The current hour holds every attempt, with a median latency.
    await expectText(chart.locator('tbody tr').last(), /≤ \d+ ms/);

    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations`);
    await expectText(page.getByTestId('success-rate'), `${rate} % ok (24 h)`, { exact: true });
  });

  it('credit use: the chart shows the credits used today, the balance and the allowance', async () => {
    await page.goto(`${svc.baseUrl}/console/#${base()}/api-token`);
    const chart = page.getByTestId('usage-chart');
    await chart.waitFor();
    await expectText(page.getByTestId('usage-used'), '1', { exact: true });
    await expectText(page.getByTestId('usage-balance'), '0', { exact: true });
    await expectText(page.getByTestId('usage-allowance'), '1', { exact: true });
    await chart.getByText('Show the numbers').click();
    const today = String(new Date().getUTCDate());
    const row = chart.locator('tbody tr').filter({ has: page.locator('th', { hasText: new RegExp(`^${today}$`) }) });
    await expectText(row.locator('td'), ['1', '1', '0']);
    // Granting credits adds to the balance and the allowance line, not to the use.
    await page.getByLabel('Grant credits for this month').fill('4');
    await page.getByRole('button', { name: 'Grant' }).click();
    await expectText(page.getByTestId('usage-balance'), '4', { exact: true });
    await expectText(page.getByTestId('usage-allowance'), '1 (+ 4 granted)', { exact: true });
    await expectText(page.getByTestId('usage-used'), '1', { exact: true });
  });

  it('at phone width: no sideways scrolling on the playground, the health chart and the credit chart', async () => {
    const phone = await ui.browser.newContext(PHONE);
    const p = await phone.newPage();
    await signIn(p, svc.baseUrl, svc.adminKey);
    for (const screen of ['bots', `integrations/${webhookId}`, 'api-token']) {
      await p.goto(`${svc.baseUrl}/console/#${base()}/${screen}`);
      await p.getByRole('heading', { level: 1 }).waitFor();
      await p.waitForLoadState('networkidle');
      if (screen === 'bots') {
        await p.getByLabel('Project API token (kept in this tab only)').fill(token);
        await p.getByLabel('Query').fill('a loja abre de segunda a sábado');
        await p.getByRole('button', { name: 'Search', exact: true }).click();
        await p.getByTestId('excerpt').first().waitFor();
      } else {
        for (const details of await p.getByText('Show the numbers').all()) await details.click();
      }
      const overflow = (await p.evaluate(SIDEWAYS_OVERFLOW)) as number;
      expect(overflow, `sideways scroll on ${screen}`).toBeLessThanOrEqual(0);
    }
    await phone.close();
  });
});
