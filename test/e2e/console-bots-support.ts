/**
 * The console story (test/e2e/console.test.ts), its last part: the project's API token and credits, the bots and
 * their knowledge files, then every screen at phone width and with the keyboard.
 */
import { expect } from 'vitest';
import { expectText, PHONE, signIn } from '#test/console/browser.ts';
import { ACCESSIBILITY_PROBLEMS, FOCUSED, SIDEWAYS_OVERFLOW } from '#test/console/in-page.ts';
import { pdfOfSize, scannedPdf } from '#test/support/pdf-fixtures.ts';
import { eventually } from '#test/support/eventually.ts';
import { base, page, projectId, svc, ui } from './console-support.ts';
import { webhookId } from './console-integrations-support.ts';

/** The console's screens of the project, the projects list first. */
const screens = () => [
  '/',
  ...['integrations', 'integrations/new', `integrations/${webhookId}`, 'api-token', 'channels', 'bots'].map(
    (s) => `${base()}/${s}`,
  ),
];

/** The API token's state as the API gives it, through replace, revoke and create; credits shown and granted. */
export async function apiTokenAndCredits(): Promise<void> {
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
}

/** A bot made through the API, shown with its knowledge file until the file is ready. */
export async function botsWithKnowledge(): Promise<void> {
  const bot = (await svc.admin('POST', `${base()}/bots`, { name: 'Support bot', instructions: 'Answer politely.' }))
    .body;
  const upload = await svc.putKnowledge(projectId, bot.botId, 'faq.md', '# FAQ\n\nRefunds take five business days.\n');
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
}

/** A 7 MB PDF by the file picker and a scanned one by drag and drop, both stored past the 6 MB request limit. */
export async function uploadLargeKnowledgeFiles(): Promise<void> {
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
}

/** A bot with 57 files: the console's first page of 50, then the rest. */
export async function pageThroughKnowledgeFiles(): Promise<void> {
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
}

/** Every screen at phone width, signed in on a phone-sized context of its own. */
export async function phoneWidth(): Promise<void> {
  const phone = await ui.browser.newContext(PHONE);
  const p = await phone.newPage();
  await signIn(p, svc.baseUrl, svc.adminKey);
  for (const screen of screens()) {
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
}

/** Every screen checked in the page for labels and contrast, then the keyboard from Integrations to its form. */
export async function accessibility(): Promise<void> {
  for (const screen of screens()) {
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
}
