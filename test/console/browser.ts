import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium as playwrightChromium, type Browser, type Locator, type Page } from 'playwright-core';
import { buildConsole } from '../../scripts/build-console.mjs';
import { CONSOLE_DIST } from '#local/console.ts';
import { eventually } from '#test/support/eventually.ts';
import type { Prerequisite } from '#test/support/prerequisites.ts';

/**
 * Debian's Chromium headless shell (`apt-get install chromium-headless-shell`), else Debian's full Chromium: the
 * browser suites run when one is there, skip elsewhere, and fail under CI without it (test/support/prerequisites.ts).
 * The shell is the same Blink and V8 as the full browser, built for automation only, and what Playwright itself runs
 * for `headless: true`. Over the console's browser files it ran half the processes and 24 s of CPU where the full
 * browser took 62 (bench/history/2026-12-suite-time-final19.md).
 */
const INSTALLED_CHROMIUMS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'] as const;
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ?? INSTALLED_CHROMIUMS.find((path) => existsSync(path)) ?? INSTALLED_CHROMIUMS[0];
const looked = process.env.CHROMIUM_PATH ? `CHROMIUM_PATH=${CHROMIUM_PATH}` : INSTALLED_CHROMIUMS.join(' or ');
export const chromium: Prerequisite = {
  present: existsSync(CHROMIUM_PATH),
  missing: `no Chromium at ${looked}; apt-get install chromium-headless-shell, or set CHROMIUM_PATH`,
};

export async function launchBrowser(): Promise<Browser> {
  return playwrightChromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A suite's browser: one desktop page (1280×900, 10 s per step), on a console built from the current sources. */
export interface ConsoleBrowser {
  browser: Browser;
  page: Page;
  /**
   * What the page did lately, with times: its API calls' answers and its uncaught errors (the last
   * {@link RECENT_KEPT}). Printed when a test fails (./explain-failures.ts).
   */
  recent: string[];
  close(): Promise<void>;
}

const RECENT_KEPT = 40;

export async function openConsoleBrowser(): Promise<ConsoleBrowser> {
  await ensureConsoleBuilt();
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const recent: string[] = [];
    const note = (line: string) => {
      recent.push(`${new Date().toISOString()} ${line}`);
      if (recent.length > RECENT_KEPT) recent.shift();
    };
    page.on('response', (response) => {
      const { pathname } = new URL(response.url());
      if (!pathname.startsWith('/console/')) note(`${response.status()} ${response.request().method()} ${pathname}`);
    });
    page.on('requestfailed', (request) =>
      note(`failed ${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
    );
    page.on('pageerror', (error) => note(`page error: ${error.message}`));
    return {
      browser,
      page,
      recent,
      async close() {
        await context.close();
        await browser.close();
      },
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** A phone as the console's small-screen checks use it. */
export const PHONE = { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true };

/** Builds the console when its sources changed since the last build (`npm test` already did it in `pretest`). */
export async function ensureConsoleBuilt(): Promise<void> {
  await buildConsole({ quiet: true });
}

/** Gzipped size of every JavaScript file the console ships (what a browser downloads at most). */
export function consoleJsGzipBytes(): { total: number; files: Record<string, number> } {
  const dir = join(CONSOLE_DIST, 'assets');
  const files: Record<string, number> = {};
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.js')))
    files[name] = gzipSync(readFileSync(join(dir, name)), { level: 9 }).length;
  return { total: Object.values(files).reduce((a, b) => a + b, 0), files };
}

/** Signs in to the console with the admin key. */
export async function signIn(page: Page, baseUrl: string, adminKey: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('Admin key').fill(adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
}

type Expected = string | RegExp | string[];

/**
 * Waits until the locator's text matches (vitest has no Playwright matchers): a string is looked for inside the
 * text (or, with `exact`, is the whole trimmed text), a RegExp is tested, a list is every match's text in order.
 */
export async function expectText(
  locator: Locator,
  expected: Expected,
  options: { exact?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  const matches = (actual: string[]) => {
    if (Array.isArray(expected))
      return actual.length === expected.length && actual.every((a, i) => a.trim() === expected[i]);
    const text = actual.join(' ').trim();
    if (expected instanceof RegExp) return expected.test(text);
    return options.exact ? text === expected : text.includes(expected);
  };
  let last: string[] = [];
  await eventually(
    async () => {
      last = await locator.allTextContents();
      return matches(last);
    },
    options.timeoutMs ?? 5_000,
    `text ${String(expected)}`,
  ).catch(() => {
    throw new Error(`expected ${String(expected)}${options.exact ? ' (exact)' : ''}, got ${JSON.stringify(last)}`);
  });
}

/** Waits until the locator matches `count` elements. */
export async function expectCount(locator: Locator, count: number, timeoutMs = 5_000): Promise<void> {
  let last = -1;
  await eventually(
    async () => {
      last = await locator.count();
      return last === count;
    },
    timeoutMs,
    `count ${count}`,
  ).catch(() => {
    throw new Error(`expected ${count} elements, got ${last}`);
  });
}
