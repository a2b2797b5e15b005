import { htmlToText as readHtml } from '../../kernel/html-text.ts';
import type { TimeBudget } from '../../kernel/time-budget.ts';

/**
 * The text a reader sees in an HTML knowledge file (`shared/kernel/html-text.ts`: one linear pass, scripts and styles
 * dropped, blocks on their own lines). The whole file is read (uploads are at most 25 MB), under the file's time
 * budget: `TimeBudgetExceededError` past it.
 */
export function htmlToText(html: string, budget?: TimeBudget): string {
  return readHtml(html, budget ? { budget } : {}).text;
}
