import { beforeEach } from 'vitest';
import type { ConsoleBrowser } from './browser.ts';

/**
 * Registers, for each test of the calling suite, what its failure prints: the page's URL, its status and alert lines,
 * and its recent API answers and errors. A step that times out says only what it waited for; this says what the page
 * showed and what the service answered meanwhile.
 */
export function explainFailures(ui: () => ConsoleBrowser | undefined): void {
  beforeEach(({ onTestFailed }) => {
    onTestFailed(async () => {
      const open = ui();
      if (!open) return;
      const shown = await open.page
        .locator('[role="alert"], [role="status"]')
        .allInnerTexts()
        .catch((error: unknown) => [`(not read: ${String(error)})`]);
      console.error(
        [
          `the page at the failure: ${open.page.url()}`,
          `its status and alert lines: ${JSON.stringify(shown.filter((t) => t.trim()))}`,
          'its recent API answers and errors:',
          ...open.recent,
        ].join('\n'),
      );
    });
  });
}
