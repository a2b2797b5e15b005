/**
 * The console story (test/e2e/console.test.ts), its first part: the service, the browser and the state the steps
 * share and build on, then sign-in, the projects, the channels and their conversations. Each step is one test of the
 * story, run in order: a step works on what the ones before it made.
 */
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  type ConsoleBrowser,
  consoleJsGzipBytes,
  expectCount,
  expectText,
  openConsoleBrowser,
  signIn,
} from '#test/console/browser.ts';
import { FIRST_SCREEN_TIMING } from '#test/console/in-page.ts';
import { eventually } from '#test/support/eventually.ts';
import { startTestService, type TestService } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

export let svc: TestService;
export let ui: ConsoleBrowser;
export let page: Page;
export let receiver: TestReceiver;
/** The project the console creates (set by `createProject`); every later step works in it. */
export let projectId: string;
/** Its channels by type (set by `createChannels`). */
export const channels: Record<'whatsapp' | 'email' | 'sms', string> = { whatsapp: '', email: '', sms: '' };

export const base = () => `/projects/${projectId}`;
export const send = (token: string, body: unknown) => svc.send(token, body);
export const sms = { to: '+5511999990000', body: 'Hello from the console test' };

/** A service of its own (the sign-in step lists every project of the deployment), a receiver and one browser page. */
export function useConsoleStory(): void {
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
}

/** The gzipped JavaScript against its budget, and the fastest of five cold loads to an interactive first screen. */
export async function firstScreenBudget(): Promise<void> {
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
}

/** 21 projects made through the API, the console signed in with the admin key, the picker paged through. */
export async function signInAndListProjects(): Promise<void> {
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
}

/** A project created in the console; sets `projectId`. */
export async function createProject(): Promise<void> {
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
}

/** A sandbox channel of each type created in the console; sets `channels`. */
export async function createChannels(): Promise<void> {
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
}

/** The mail address a channel receives at, and a contact's reply simulated on the SMS channel. */
export async function simulateSandboxReply(): Promise<void> {
  await expectText(page.getByRole('table', { name: 'Channels' }), 'mail to support@example.com');
  await page.getByLabel('Channel', { exact: true }).selectOption(channels.sms);
  await page.getByLabel('From', { exact: true }).fill('+5511955554444');
  await page.getByLabel('Text', { exact: true }).fill('yes please');
  await page.getByRole('button', { name: 'Simulate' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Event evt_\w+ sent to the webhooks\./ })
    .waitFor();
}

/** An opt-out lifted, a WhatsApp window shown, and a mailed photo previewed from the bucket. */
export async function conversationsAndOptOuts(): Promise<void> {
  // A contact opts out of the SMS channel; another writes to the mailbox with a photo attached.
  await svc.admin('POST', `${base()}/channels/${channels.sms}/sandbox/inbound`, {
    from: '+5511955553333',
    text: 'SAIR',
  });
  const photo = readFileSync(new URL('../../docs/screenshots/10-channels.png', import.meta.url));
  await nodemailer.createTransport({ host: '127.0.0.1', port: svc.smtpPort, secure: false, ignoreTLS: true }).sendMail({
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
}
