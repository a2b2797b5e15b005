// Screenshots of the console's main screens, for docs/screenshots/ (`npm run screenshots`). Starts the whole local
// service with a throwaway data folder, fills it with a realistic project, and drives Debian's Chromium (its headless
// shell where installed, as the browser tests do).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { chromium, ensureConsoleBuilt, launchBrowser, signIn } from '#test/console/browser.ts';
import { startReceiver } from '#test/e2e/webhooks-support.ts';
import { eventually } from '#test/support/eventually.ts';
import { startTestService } from '#test/support/service.ts';

if (!chromium.present) {
  console.error(`Chromium not found: ${chromium.missing}.`);
  process.exit(1);
}
const out = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
mkdirSync(out, { recursive: true });

await ensureConsoleBuilt();
const svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0.5' } });
const receiver = await startReceiver((d) => (d.json?.channel?.type === 'whatsapp' ? 500 : 200));
const browser = await launchBrowser();
try {
  // A few older projects first, so the picker's listing (newest first) has something under Acme Support.
  for (const [companyId, name, monthlyBotCredits] of [
    [1007, 'Globex Billing', 0],
    [1019, 'Initech Helpdesk', 200],
    [1023, 'Umbrella Logistics', 1000],
  ] as const) {
    await svc.newProject({ companyId, name, monthlyBotCredits });
  }
  const { projectId, token: apiToken } = await svc.newProject({
    companyId: 1042,
    name: 'Acme Support',
    monthlyBotCredits: 500,
  });
  const p = `/projects/${projectId}`;
  const channel = async (type: string, name: string, address: string, credits?: number) =>
    (await svc.admin('POST', `${p}/channels`, { type, name, address, ...(credits === undefined ? {} : { credits }) }))
      .body.channelId as string;
  const whatsapp = await channel('whatsapp', 'Sales WhatsApp', '5511988887777');
  const email = await channel('email', 'Support mailbox', 'support@acme.example', 1000);
  const sms = await channel('sms', 'Alerts SMS', '+5511977776666', 250);
  await svc.admin('POST', `${p}/integrations`, { product: 'custom', channelId: email });
  await svc.admin('POST', `${p}/integrations`, { product: 'custom', channelId: sms });
  const general = (
    await svc.admin('POST', `${p}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: `${receiver.url}/events`,
      bearerToken: 'r3ceiver',
    })
  ).body;
  const specific = (
    await svc.admin('POST', `${p}/integrations`, {
      product: 'webhook',
      scope: 'channel',
      channelId: whatsapp,
      url: `${receiver.url}/whatsapp`,
    })
  ).body;
  for (const type of ['message.received', 'message.sent', 'message.delivered']) {
    await svc.admin('POST', `${p}/events`, {
      channelId: sms,
      type,
      data: { messageId: 'msg_demo', to: '+5511900000000' },
    });
  }
  await svc.admin('POST', `${p}/integrations/${specific.integrationId}/test`);
  await eventually(
    async () => {
      const [g, s] = await Promise.all([
        svc.admin('GET', `${p}/integrations/${general.integrationId}/deliveries`),
        svc.admin('GET', `${p}/integrations/${specific.integrationId}/deliveries?status=failed`),
      ]);
      return g.body.items.filter((d: any) => d.status === 'succeeded').length >= 3 && s.body.items.length >= 1;
    },
    20_000,
    'deliveries',
  );
  const bot = (
    await svc.admin('POST', `${p}/bots`, {
      name: 'Support assistant',
      instructions: 'Answer customers politely, in Portuguese or English, using the knowledge base.',
    })
  ).body;
  const upload = (name: string, type: string, body: string) =>
    fetch(`${svc.baseUrl}/admin/v1${p}/bots/${bot.botId}/knowledge/${name}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': type },
      body,
    });
  await upload(
    'refund-policy.md',
    'text/markdown',
    '# Refunds\n\nRefunds take five business days after the return arrives.\n',
  );
  await upload('shipping.txt', 'text/plain', 'Orders ship within two days. Tracking codes arrive by email.\n');
  await eventually(
    async () =>
      (await svc.admin('GET', `${p}/bots/${bot.botId}/knowledge`)).body.items.every((f: any) => f.status === 'ready'),
    20_000,
    'knowledge',
  );

  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const shot = async (target: Page, name: string, fullPage = true) => {
    await target.waitForLoadState('networkidle');
    await target.screenshot({ path: `${out}${name}.png`, fullPage });
    console.log(`docs/screenshots/${name}.png`);
  };

  await page.goto(`${svc.baseUrl}/console/`);
  await page.getByLabel('Admin key').fill('sba_••••••••');
  await shot(page, '01-sign-in', false);
  await signIn(page, svc.baseUrl, svc.adminKey);
  await page.getByRole('list', { name: 'Projects' }).waitFor();
  await shot(page, '02-projects', false);

  await page.goto(`${svc.baseUrl}/console/#${p}/integrations`);
  await page.getByRole('table', { name: 'Integrations' }).waitFor();
  await shot(page, '03-integrations');

  await page.goto(`${svc.baseUrl}/console/#${p}/integrations/new`);
  await page.getByLabel('Specific channel').check();
  await page.getByLabel('Type').selectOption('whatsapp');
  await page.getByLabel('Instance').selectOption(whatsapp);
  await page.getByLabel('URL').fill('https://hooks.acme.example/switchboard');
  await page.getByLabel('Bearer token (optional)').fill('secret-value');
  await shot(page, '04-new-webhook');

  await page.getByLabel('Custom', { exact: true }).check();
  await page.getByLabel('Type').selectOption('email');
  await page.getByLabel('Instance').selectOption(email);
  await page.getByRole('button', { name: 'Create custom integration' }).click();
  await page.getByRole('textbox', { name: 'Custom integration token', exact: true }).waitFor();
  await shot(page, '05-token-shown-once', false);

  await page.goto(`${svc.baseUrl}/console/#${p}/integrations/${general.integrationId}`);
  await page.getByRole('table', { name: 'Deliveries' }).waitFor();
  await shot(page, '06-webhook-delivery-log');

  await page.goto(`${svc.baseUrl}/console/#${p}/integrations/${specific.integrationId}`);
  await page
    .getByRole('button', { name: /^Retry delivery/ })
    .first()
    .waitFor();
  await shot(page, '07-failed-delivery-retry');

  await page.goto(`${svc.baseUrl}/console/#${p}/api-token`);
  await page.getByTestId('credits-available').waitFor();
  await page.getByTestId('token-state').locator('time').waitFor();
  await shot(page, '08-api-token-and-credits', false);

  await page.goto(`${svc.baseUrl}/console/#${p}/bots`);
  await page.getByRole('table', { name: 'Knowledge files of Support assistant' }).waitFor();
  await shot(page, '09-bots');

  await page.goto(`${svc.baseUrl}/console/#${p}/channels`);
  await page.getByRole('table', { name: 'Channels' }).waitFor();
  await shot(page, '10-channels');

  await page.goto(`${svc.baseUrl}/docs#postIntegrationGeneric`);
  await page.getByRole('heading', { level: 1, name: 'Switchboard API' }).waitFor();
  await shot(page, '11-api-reference', false);

  // The "try and see" screens: the playground after a streamed answer and the search tester with results.
  const tryBots = async (target: Page) => {
    await target.goto(`${svc.baseUrl}/console/#${p}/bots`);
    await target.getByLabel('Project API token (kept in this tab only)').fill(apiToken);
    await target.getByLabel('Message').fill('How long do refunds take?');
    await target.getByRole('button', { name: 'Send' }).click();
    await target.getByTestId('playground-reply').waitFor({ timeout: 20_000 });
    await target.getByLabel('Query').fill('refund time');
    await target.getByLabel('Leave out files matching').fill('ship%');
    await target.getByRole('button', { name: 'Search', exact: true }).click();
    await target.getByTestId('excerpt').first().waitFor();
  };
  const openNumbers = async (target: Page, testId: string) => {
    await target.getByTestId(testId).waitFor();
    await target.getByTestId(testId).getByText('Show the numbers').click();
  };
  await tryBots(page);
  await shot(page, '14-bot-playground-and-search');
  await page.goto(`${svc.baseUrl}/console/#${p}/integrations/${specific.integrationId}`);
  await page.getByTestId('health-chart').waitFor();
  await shot(page, '15-webhook-health');
  await page.goto(`${svc.baseUrl}/console/#${p}/api-token`);
  await openNumbers(page, 'usage-chart');
  await shot(page, '16-credit-use');

  const phone = await browser.newContext({
    viewport: { width: 375, height: 780 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const small = await phone.newPage();
  await signIn(small, svc.baseUrl, svc.adminKey);
  await small.goto(`${svc.baseUrl}/console/#${p}/integrations`);
  await small.getByRole('table', { name: 'Integrations' }).waitFor();
  await shot(small, '12-phone-integrations', false);
  await small.goto(`${svc.baseUrl}/console/#${p}/integrations/new`);
  await small.getByRole('heading', { level: 1, name: 'New integration' }).waitFor();
  await shot(small, '13-phone-new-integration', false);
  await tryBots(small);
  await shot(small, '17-phone-bot-playground-and-search');
  await small.goto(`${svc.baseUrl}/console/#${p}/integrations/${specific.integrationId}`);
  await openNumbers(small, 'health-chart');
  await shot(small, '18-phone-webhook-health');
  await small.goto(`${svc.baseUrl}/console/#${p}/api-token`);
  await small.getByTestId('usage-chart').waitFor();
  await shot(small, '19-phone-credit-use');
} finally {
  await browser.close();
  await receiver.close();
  await svc.close();
}
