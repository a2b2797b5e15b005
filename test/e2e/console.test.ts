import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ConsoleBrowser,
  consoleJsGzipBytes,
  expectCount,
  expectText,
  chromium,
  openConsoleBrowser,
  PHONE,
  signIn,
} from '#test/console/browser.ts';
import { ACCESSIBILITY_PROBLEMS, FIRST_SCREEN_TIMING, FOCUSED, SIDEWAYS_OVERFLOW } from '#test/console/in-page.ts';
import { pdfOfSize, scannedPdf } from '#test/support/pdf-fixtures.ts';
import { eventually } from '#test/support/eventually.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { startTestService, type TestService } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

// The console driven in Debian's Chromium against the whole local service: what a user does in Settings →
// Integrations, checked through the management API and the public endpoints.
describeNeeding(chromium, 'console in a browser', () => {
  let svc: TestService;
  let ui: ConsoleBrowser;
  let page: Page;
  let receiver: TestReceiver;
  let projectId: string;
  const channels: Record<'whatsapp' | 'email' | 'sms', string> = { whatsapp: '', email: '', sms: '' };

  beforeAll(async () => {
    // Two attempts one second apart: a failing delivery is `failed` quickly.
    svc = await startTestService({ threads: false, env: { WEBHOOK_RETRY_SCHEDULE: '1' } });
    receiver = await startReceiver();
    ui = await openConsoleBrowser();
    page = ui.page;
  });
  afterAll(async () => {
    await ui?.close();
    await receiver?.close();
    await svc?.close();
  });

  const base = () => `/projects/${projectId}`;
  const send = (token: string, body: unknown) => svc.send(token, body);
  const sms = { to: '+5511999990000', body: 'Hello from the console test' };

  it('ships under 40 KB of gzipped JavaScript and is interactive in under 1 s', async () => {
    const js = consoleJsGzipBytes();
    // The console's budget: charts are hand-drawn SVG, not a library, to stay inside it.
    expect(js.total).toBeLessThan(40 * 1024);

    // Five cold loads (a fresh context each: empty cache); the fastest is judged: the machine is shared by the other
    // test files running at the same time, and their load only ever adds time (a median of 1,043 ms whose fastest was
    // 450 ms was seen under a loaded CI run), while a console that is slow by itself is slow at every load.
    const loads: { interactive: number; domInteractive: number; responseEnd: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const fresh = await ui.browser.newContext();
      const first = await fresh.newPage();
      await first.goto(`${svc.baseUrl}/console/`);
      await first.getByLabel('Admin key').waitFor();
      loads.push(
        (await first.evaluate(FIRST_SCREEN_TIMING)) as {
          interactive: number;
          domInteractive: number;
          responseEnd: number;
        },
      );
      await fresh.close();
    }
    loads.sort((a, b) => a.interactive - b.interactive);
    const timing = loads[0]!;
    console.info(
      `console: ${js.total} B gzipped JS; first screen interactive at ${timing.interactive.toFixed(0)} ms, the fastest of ${loads.map((l) => l.interactive.toFixed(0)).join('/')} ` +
        `(HTML received ${timing.responseEnd.toFixed(0)} ms, domInteractive ${timing.domInteractive.toFixed(0)} ms)`,
    );
    expect(timing.interactive).toBeLessThan(1000);
  });

  it('refuses a wrong admin key, then signs in and lists the projects created through the API, a page at a time', async () => {
    // One more than the console's page (20), so the last one needs "Load more".
    // The newest (the one opened below) with a sends limit of its own, its reported events at the default.
    for (let n = 1; n <= 21; n++)
      expect(
        (
          await svc.admin('POST', '/projects', {
            companyId: 7000 + n,
            name: `API project ${n}`,
            ...(n === 21 ? { limits: { sendsPerSecond: 250 } } : {}),
          })
        ).status,
      ).toBe(201);
    const listed = (await svc.admin('GET', '/projects?limit=100')).body.items as { projectId: string; name: string }[];
    expect(listed).toHaveLength(21);

    await page.goto(`${svc.baseUrl}/console`);
    await page.getByLabel('Admin key').fill('sba_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'not accepted');
    await signIn(page, svc.baseUrl, svc.adminKey);

    // The picker shows the API's listing in its order (newest first), 20 at a time.
    const names = page.getByRole('list', { name: 'Projects' }).getByRole('listitem').getByRole('link');
    await expectText(
      names,
      listed.slice(0, 20).map((p) => p.name),
    );
    await page.getByRole('button', { name: 'Load more projects' }).click();
    await expectText(
      names,
      listed.map((p) => p.name),
    );
    await expectCount(page.getByRole('button', { name: 'Load more projects' }), 0);

    await page.getByRole('link', { name: listed[0]!.name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    await expectText(page.locator('.project-line'), listed[0]!.projectId);
    await expectText(page.locator('.project-line [data-limits]'), '250 sends a second');
    await expectText(page.locator('.project-line [data-limits]'), "reported events: the deployment's default");
  });

  it('creates a project, which then heads the list', async () => {
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Console test');
    await page.getByLabel('Company id').fill('4242');
    await page.getByLabel('Monthly bot credits').fill('25');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    projectId = /#\/projects\/([^/]+)\//.exec(page.url())![1]!;
    const project = await svc.admin('GET', base());
    expect(project.body).toMatchObject({ name: 'Console test', companyId: 4242, monthlyBotCredits: 25 });

    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    const first = page.getByRole('list', { name: 'Projects' }).getByRole('listitem').first();
    await expectText(first, 'Console test');
    await expectText(first, projectId);
    await first.getByRole('link', { name: 'Console test' }).click();
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
  });

  it('creates a channel of each type', async () => {
    await page.getByRole('link', { name: 'Channels' }).click();
    const addresses = { whatsapp: '5511988887777', email: 'support@example.com', sms: '+5511977776666' } as const;
    for (const type of ['whatsapp', 'email', 'sms'] as const) {
      await page.getByLabel('Type').selectOption(type);
      await page.getByLabel('Name').fill(`${type} main`);
      await page.getByLabel('Address').fill(addresses[type]);
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Channel ${type} main created.` })
        .waitFor();
    }
    const listed = (await svc.admin('GET', `${base()}/channels`)).body.items as {
      channelId: string;
      type: keyof typeof channels;
    }[];
    for (const c of listed) channels[c.type] = c.channelId;
    expect(Object.values(channels).every(Boolean)).toBe(true);
    await expectCount(page.getByRole('table', { name: 'Channels' }).getByRole('row'), 4);
  });

  it('shows where inbound mail goes and simulates a contact’s reply on a sandbox channel', async () => {
    await expectText(page.getByRole('table', { name: 'Channels' }), 'mail to support@example.com');
    await page.getByLabel('Channel', { exact: true }).selectOption(channels.sms);
    await page.getByLabel('From', { exact: true }).fill('+5511955554444');
    await page.getByLabel('Text', { exact: true }).fill('yes please');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Event evt_\w+ sent to the webhooks\./ })
      .waitFor();
  });

  it('shows a channel’s suppressions (and lifts one), the WhatsApp window, and received images as previews', async () => {
    // A contact opts out of the SMS channel; another writes to the mailbox with a photo attached.
    await svc.admin('POST', `${base()}/channels/${channels.sms}/sandbox/inbound`, {
      from: '+5511955553333',
      text: 'SAIR',
    });
    const photo = readFileSync(new URL('../../docs/screenshots/10-channels.png', import.meta.url));
    await nodemailer
      .createTransport({ host: '127.0.0.1', port: svc.smtpPort, secure: false, ignoreTLS: true })
      .sendMail({
        from: 'ana@example.org',
        to: 'support@example.com',
        subject: 'Foto do produto',
        text: 'Veio quebrado',
        attachments: [{ filename: 'produto.png', content: photo, contentType: 'image/png' }],
      });
    await page.reload();
    const panel = page.getByRole('region', { name: 'Conversations and opt-outs' });
    await panel.getByLabel('Conversations on').selectOption(channels.sms);
    const suppressed = panel.getByRole('table', { name: 'Suppressed contacts' });
    await expectText(suppressed, '+5511955553333');
    await expectText(suppressed, 'Wrote “SAIR”');
    await suppressed.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Remove suppression' }).click();
    await panel.getByRole('status').filter({ hasText: '+5511955553333 can be sent to again.' }).waitFor();
    expect((await svc.admin('GET', `${base()}/channels/${channels.sms}/suppressions`)).body.items).toEqual([]);

    // The WhatsApp window of a contact who never wrote: templates only.
    await panel.getByLabel('Conversations on').selectOption(channels.whatsapp);
    await panel.getByLabel('Contact', { exact: true }).fill('5511944443333');
    await panel.getByRole('button', { name: 'Show' }).click();
    await expectText(panel, 'Never wrote: templates only');

    // The mail with its image: shown from the bucket's presigned URL (the console's CSP lets the store's origin in).
    await panel.getByLabel('Conversations on').selectOption(channels.email);
    await eventually(
      async () =>
        (await svc.admin('GET', `${base()}/channels/${channels.email}/conversations/ana%40example.org/messages`)).body
          .items?.length === 1,
      15_000,
      'the mail with the photo',
    );
    await panel.getByLabel('Contact', { exact: true }).fill('ana@example.org');
    await panel.getByRole('button', { name: 'Show' }).click();
    const preview = panel.getByRole('img', { name: 'produto.png' });
    await preview.waitFor();
    await eventually(
      async () =>
        (await preview.evaluate((img) => {
          const i = img as unknown as { complete: boolean; naturalWidth: number };
          return i.complete ? i.naturalWidth : 0;
        })) > 0,
      10_000,
      'the preview to load',
    );
    await expectText(panel, 'Veio quebrado');
  });

  let customToken = '';
  let customId = '';

  it('creates a custom integration whose token is shown once, works on the send endpoint and is gone after a reload', async () => {
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('link', { name: 'New integration' }).click();
    await page.getByLabel('Custom', { exact: true }).check();
    await page.getByLabel('Type').selectOption('sms');
    await page.getByLabel('Instance').selectOption(channels.sms);
    await page.getByRole('button', { name: 'Create custom integration' }).click();

    await page.getByText('This will not be shown again.').waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    customToken = await page.getByRole('textbox', { name: 'Custom integration token', exact: true }).inputValue();
    expect(customToken).toMatch(/^sbc_[A-Za-z0-9_-]{43}$/);

    const listed = (await svc.admin('GET', `${base()}/integrations`)).body.items as any[];
    const custom = listed.find((i) => i.product === 'custom');
    expect(custom).toMatchObject({ product: 'custom', scope: 'channel', channelId: channels.sms });
    customId = custom.integrationId;

    const sent = await send(customToken, sms);
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({
      success: true,
      status: 'sent',
      channel: { id: channels.sms, type: 'sms' },
    });

    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.content()).not.toContain(customToken);
    const stored = await page.evaluate(
      () => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }),
    );
    expect(stored).not.toContain(customToken);
    expect(stored).toContain(svc.adminKey); // the admin key, in this tab's sessionStorage only
  });

  it('rotates the custom token: the new one is shown once and the old one stops working', async () => {
    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations/${customId}`);
    await page.getByRole('heading', { level: 1, name: 'Custom integration' }).waitFor();
    await page.getByRole('button', { name: 'Rotate token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate token' }).click();
    const rotated = await page.getByRole('textbox', { name: 'Custom integration token', exact: true }).inputValue();
    expect(rotated).toMatch(/^sbc_/);
    expect(rotated).not.toBe(customToken);

    expect((await send(customToken, sms)).status).toBe(401);
    expect((await send(rotated, sms)).status).toBe(200);
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    expect(await page.content()).not.toContain(rotated);
  });

  let webhookId = '';
  let signingSecret = '';

  it('creates a general webhook with a bearer token; a test event reaches the receiver signed and shows in the delivery log', async () => {
    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations/new`);
    await page.getByLabel('Webhook', { exact: true }).check();
    await page.getByLabel('General', { exact: true }).check();
    await page.getByLabel('URL').fill(`${receiver.url}/general`);
    await page.getByLabel('Bearer token (optional)').fill('receiver-secret-1');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    signingSecret = await page.getByRole('textbox', { name: 'Webhook signing secret', exact: true }).inputValue();
    expect(signingSecret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    webhookId = /integrations\/([^/?]+)$/.exec(page.url())![1]!;

    const seen = await svc.admin('GET', `${base()}/integrations/${webhookId}`);
    expect(seen.body).toMatchObject({
      product: 'webhook',
      scope: 'general',
      channelId: null,
      url: `${receiver.url}/general`,
      enabled: true,
      hasBearerToken: true,
    });

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: 'queued' }).waitFor();
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.headers.authorization).toBe('Bearer receiver-secret-1');
    expect(delivery!.json.type).toBe('webhook.test');
    // The secret the console showed verifies the delivery with the Standard Webhooks library.
    const verified = new Webhook(signingSecret).verify(delivery!.body, delivery!.headers as Record<string, string>) as {
      id: string;
    };
    expect(verified.id).toBe(delivery!.json.id);

    const row = page.locator(`tr:has(td:has-text("${delivery!.json.id}"))`);
    await eventually(
      async () => {
        if (await row.count()) return true;
        await page.getByRole('button', { name: 'Refresh' }).click();
        return false;
      },
      10_000,
      'delivery row',
    );
    await expectText(row, 'Succeeded');
    await expectText(row.locator('.attempt-status'), 'HTTP 200', { exact: true });
    await expectText(row.locator('.attempt-duration'), /^\d+ ms$/);
  });

  it('disables and enables the webhook, and rotates its signing secret (shown once)', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled (by hand)').waitFor();
    expect((await svc.admin('GET', `${base()}/integrations/${webhookId}`)).body).toMatchObject({
      enabled: false,
      disabledReason: 'manual',
    });
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled', { exact: true }).waitFor();
    expect((await svc.admin('GET', `${base()}/integrations/${webhookId}`)).body.enabled).toBe(true);

    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    const next = await page.getByRole('textbox', { name: 'Webhook signing secret', exact: true }).inputValue();
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(signingSecret);
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();

    // The next delivery is signed under the new secret too.
    await page.getByRole('button', { name: 'Send test event' }).click();
    const [, second] = await receiver.waitFor(2);
    expect(() => new Webhook(next).verify(second!.body, second!.headers as Record<string, string>)).not.toThrow();
  });

  it('creates a channel-specific webhook (type, then instance); a failed delivery is retried from the log', async () => {
    let failing = true;
    // The specific webhook's test event (it names the WhatsApp channel) fails until the test says otherwise.
    receiver.answer = (d) =>
      failing && d.json?.type === 'webhook.test' && d.json?.channel?.type === 'whatsapp' ? 500 : 200;
    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations/new`);
    await page.getByLabel('Webhook', { exact: true }).check();
    await page.getByLabel('Specific channel').check();
    await page.getByLabel('Type').selectOption('whatsapp');
    await page.getByLabel('Instance').selectOption(channels.whatsapp);
    await page.getByLabel('URL').fill(`${receiver.url}/specific`);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('textbox', { name: 'Webhook signing secret', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    const specificId = /integrations\/([^/?]+)$/.exec(page.url())![1]!;
    expect((await svc.admin('GET', `${base()}/integrations/${specificId}`)).body).toMatchObject({
      scope: 'channel',
      channelId: channels.whatsapp,
      hasBearerToken: false,
    });

    await page.getByRole('button', { name: 'Send test event' }).click();
    const failedRow = page.locator('tr[data-delivery-id]').first();
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await failedRow.count()) > 0 && (await failedRow.textContent())!.includes('Failed');
      },
      15_000,
      'failed delivery',
    );
    await expectText(failedRow.locator('.attempt-status'), ['HTTP 500', 'HTTP 500']);

    failing = false;
    await failedRow.getByRole('button', { name: /^Retry delivery/ }).click();
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await failedRow.textContent())!.includes('Succeeded');
      },
      15_000,
      'retried delivery',
    );
    await expectText(failedRow.locator('.attempt-status'), ['HTTP 500', 'HTTP 500', 'HTTP 200']);
  });

  it('lists every integration and deletes one', async () => {
    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations`);
    const table = page.getByRole('table', { name: 'Integrations' });
    await expectCount(table.locator('tbody tr'), 3);
    await expectText(table, 'General (all channels)');
    await expectText(table, 'SMS · sms main');

    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations/${customId}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete integration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    expect((await svc.admin('GET', `${base()}/integrations/${customId}`)).status).toBe(404);
    await expectCount(page.getByRole('table', { name: 'Integrations' }).locator('tbody tr'), 2);
  });

  it('shows the API token state from the API (active for a token created through the API, none after revoke) and the bot credits', async () => {
    const health = (token: string) =>
      fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } });
    const tokenState = async () =>
      (await svc.admin('GET', `${base()}/api-token`)).body as { active: boolean; issuedAt?: string };
    const fromApi = (await svc.admin('POST', `${base()}/api-token`)).body.token as string;
    const issuedAt = (await tokenState()).issuedAt!;

    await page.getByRole('link', { name: 'API token & credits' }).click();
    await expectText(page.getByTestId('credits-available'), '25', { exact: true });
    const credits = (await svc.admin('GET', `${base()}/bot-credits`)).body;
    await expectText(page.getByTestId('credits-month'), credits.mes, { exact: true });

    // Active since the time the API gave, with the time element carrying it exactly.
    const state = page.getByTestId('token-state');
    await expectText(state, /^Active since /);
    expect(await state.locator('time').getAttribute('datetime')).toBe(issuedAt);

    await page.getByRole('button', { name: 'Replace token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replace token' }).click();
    const replaced = await page.getByRole('textbox', { name: 'Project API token', exact: true }).inputValue();
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    expect((await health(fromApi)).status).toBe(401);
    expect((await health(replaced)).status).toBe(200);
    // The screen read the state again: the replacement's issue time.
    const reissuedAt = (await tokenState()).issuedAt!;
    expect(reissuedAt).not.toBe(issuedAt);
    await eventually(
      async () => (await state.locator('time').getAttribute('datetime')) === reissuedAt,
      5_000,
      'state of the replaced token',
    );
    await expectText(state, /^Active since /);

    await page.getByRole('button', { name: 'Revoke token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await expectText(state, /^None\b/);
    expect(await tokenState()).toEqual({ active: false });
    expect(await page.getByRole('button', { name: 'Revoke token' }).isDisabled()).toBe(true);
    const revoked = await health(replaced);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: string }).error).toBe('ERR_API_TOKEN_INVALID');

    // A reload reads the same state from the API (nothing was kept in the tab).
    await page.reload();
    await expectText(page.getByTestId('token-state'), /^None\b/);

    // With no token the action is "Create token"; the new token is shown once and the state is active again.
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Create token' }).click();
    const created = await page.getByRole('textbox', { name: 'Project API token', exact: true }).inputValue();
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    expect((await health(created)).status).toBe(200);
    await expectText(page.getByTestId('token-state'), /^Active since /);

    await page.getByLabel('Grant credits for this month').fill('5');
    await page.getByRole('button', { name: 'Grant' }).click();
    await expectText(page.getByTestId('credits-available'), '30', { exact: true });
  });

  it('shows the bots with their knowledge files and status', async () => {
    const bot = (await svc.admin('POST', `${base()}/bots`, { name: 'Support bot', instructions: 'Answer politely.' }))
      .body;
    const upload = await svc.putKnowledge(
      projectId,
      bot.botId,
      'faq.md',
      '# FAQ\n\nRefunds take five business days.\n',
    );
    expect(upload.status).toBe(202);
    await page.getByRole('link', { name: 'Bots' }).click();
    await page.getByRole('heading', { level: 2, name: 'Support bot' }).waitFor();
    const files = page.getByRole('table', { name: 'Knowledge files of Support bot' });
    await expectText(files, 'faq.md');
    await eventually(
      async () => {
        if ((await files.textContent())!.includes('Ready')) return true;
        await page.getByRole('button', { name: 'Refresh' }).click();
        return false;
      },
      15_000,
      'knowledge file ready',
    );
  });

  it('uploads knowledge files past 6 MB straight to storage, by file picker and by drag and drop, and shows OCR pages', async () => {
    await page.getByRole('heading', { level: 2, name: 'Support bot' }).waitFor();
    const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Support bot' }) });
    const files = page.getByRole('table', { name: 'Knowledge files of Support bot' });
    const big = Buffer.from(await pdfOfSize(7 * 1024 * 1024, 'Catalogo de pecas do trator agricola'));
    // A 7 MB file crosses the DevTools pipe in base64: past the 10 s action default on a loaded machine.
    await card
      .getByLabel(/Add knowledge files/)
      .setInputFiles({ name: 'catalogo.pdf', mimeType: 'application/pdf', buffer: big }, { timeout: 45_000 });
    await expectText(card.getByRole('status'), 'catalogo.pdf uploaded; it is being processed.');
    const scan = Buffer.from(await scannedPdf('Inspection report of the north warehouse')).toString('base64');
    const dataTransfer = await page.evaluateHandle((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      // Runs in the page, where DataTransfer exists (the test's own types have no DOM).
      const { DataTransfer } = globalThis as unknown as {
        DataTransfer: new () => { items: { add(file: File): void } };
      };
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'inspecao.pdf', { type: 'application/pdf' }));
      return dt;
    }, scan);
    await card.locator('.dropzone').dispatchEvent('drop', { dataTransfer });
    await expectText(card.getByRole('status'), 'inspecao.pdf uploaded; it is being processed.');
    // The page polls while files are processing: no Refresh needed.
    const row = (name: string) => files.getByRole('row').filter({ hasText: name });
    await eventually(
      async () => (await row('catalogo.pdf').textContent())!.includes('Ready'),
      30_000,
      'uploaded PDF ready',
    );
    await eventually(
      async () => (await row('inspecao.pdf').textContent())!.includes('Ready'),
      60_000,
      'scanned PDF ready',
    );
    await expectText(row('inspecao.pdf').locator('td[data-label="OCR pages"]'), '1', { exact: true });
    const listed = await svc.admin(
      'GET',
      `${base()}/bots/${(await svc.admin('GET', `${base()}/bots`)).body.items[0].botId}/knowledge`,
    );
    expect(listed.body.items.find((f: { fileName: string }) => f.fileName === 'catalogo.pdf')).toMatchObject({
      status: 'ready',
      bytes: big.length,
    });
  }, 90_000); // two uploads past 6 MB and an OCR pass: ~10 s alone, 30 s and more beside the other files under load

  it('pages through a bot with more files than one page: the first 50, then the rest on "Load more files"', async () => {
    const bot = (await svc.admin('POST', `${base()}/bots`, { name: 'Help center', instructions: 'Answer.' })).body;
    const names = Array.from({ length: 57 }, (_, i) => `article-${String(i).padStart(2, '0')}.md`);
    for (const name of names)
      expect((await svc.putKnowledge(projectId, bot.botId, name, `# ${name}\n\nText.`)).status).toBe(202);
    await svc.knowledgeReady(projectId, bot.botId, names.length);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Help center' }) });
    const rows = card.getByRole('table', { name: 'Knowledge files of Help center' }).getByRole('row');
    await eventually(async () => (await rows.count()) === 51, 15_000, 'first page of files'); // with the header row
    await expectText(rows.nth(50), 'article-49.md');
    await card.getByRole('button', { name: /Load more files \(50 shown\)/ }).click();
    await eventually(async () => (await rows.count()) === 58, 15_000, 'second page of files');
    await expectText(rows.nth(57), 'article-56.md');
    expect(await card.getByRole('button', { name: /Load more files/ }).count()).toBe(0);
  }, 90_000); // 57 files uploaded and ingested first: ~10 s alone, past 30 s beside the rest of the suite

  it('is usable at phone width: no sideways scrolling, tables as labelled cards', async () => {
    const phone = await ui.browser.newContext(PHONE);
    const p = await phone.newPage();
    await signIn(p, svc.baseUrl, svc.adminKey);
    for (const screen of [
      '/',
      ...['integrations', 'integrations/new', `integrations/${webhookId}`, 'api-token', 'channels', 'bots'].map(
        (s) => `${base()}/${s}`,
      ),
    ]) {
      await p.goto(`${svc.baseUrl}/console/#${screen}`);
      await p.getByRole('heading', { level: 1 }).waitFor();
      await p.waitForLoadState('networkidle');
      const overflow = (await p.evaluate(SIDEWAYS_OVERFLOW)) as number;
      expect(overflow, `sideways scroll on ${screen}`).toBeLessThanOrEqual(0);
    }
    await p.goto(`${svc.baseUrl}/console/#${base()}/integrations`);
    const cellLabel = await p
      .locator('td[data-label="Status"]')
      .first()
      .evaluate((td) => (globalThis as any).getComputedStyle(td, '::before').content as string);
    expect(cellLabel).toBe('"Status"');
    await phone.close();
  });

  it('is accessible: every control has a label, the keyboard reaches the actions, text has enough contrast', async () => {
    for (const screen of [
      '/',
      ...['integrations', 'integrations/new', `integrations/${webhookId}`, 'api-token', 'channels', 'bots'].map(
        (s) => `${base()}/${s}`,
      ),
    ]) {
      await page.goto(`${svc.baseUrl}/console/#${screen}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      const problems = (await page.evaluate(ACCESSIBILITY_PROBLEMS)) as string[];
      expect(problems, screen).toEqual([]);
    }

    // Keyboard only: from the Integrations screen, Tab reaches "New integration" and Enter opens the form.
    await page.goto(`${svc.baseUrl}/console/#${base()}/integrations`);
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    let reached = false;
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = ((await page.evaluate(FOCUSED)) as { text: string }).text === 'New integration';
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'New integration' }).waitFor();
    expect(((await page.evaluate(FOCUSED)) as { tag: string }).tag).toBe('H1');
  });
});
