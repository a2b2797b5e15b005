/**
 * The console story (test/e2e/console.test.ts), Settings → Integrations: a custom integration and its token, the
 * webhooks (general and per channel), their delivery log, retries and secrets, then the list.
 */
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { expectCount, expectText } from '#test/console/browser.ts';
import { eventually } from '#test/support/eventually.ts';
import { base, channels, page, receiver, send, sms, svc } from './console-support.ts';

let customToken = '';
let customId = '';
/** The general webhook (set by `createGeneralWebhook`): its screen is among those checked at phone width. */
export let webhookId = '';
let signingSecret = '';

/** A custom integration created on the SMS channel: its token shown once, accepted by the send endpoint. */
export async function createCustomIntegration(): Promise<void> {
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
  const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
  expect(stored).not.toContain(customToken);
  expect(stored).toContain(svc.adminKey); // the admin key, in this tab's sessionStorage only
}

/** The custom token rotated in the console: the old one refused (401), the new one accepted. */
export async function rotateCustomToken(): Promise<void> {
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
}

/** A general webhook with a bearer token, its test event verified with the secret the console showed. */
export async function createGeneralWebhook(): Promise<void> {
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
}

/** The general webhook disabled and enabled by hand, its secret rotated and the next delivery signed with it. */
export async function disableEnableAndRotateSecret(): Promise<void> {
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
}

/** A webhook for the WhatsApp channel whose test event fails twice, then is retried from the delivery log. */
export async function retryFailedChannelDelivery(): Promise<void> {
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
}

/** The three integrations listed; the custom one deleted (404 through the API afterwards). */
export async function listAndDeleteIntegration(): Promise<void> {
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
}
