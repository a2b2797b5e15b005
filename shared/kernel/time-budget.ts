/**
 * The time one knowledge file may take to become text and excerpts. The text pipeline is synchronous, so it is
 * checked between steps (and every few hundred lines inside the Markdown converter); the PDF reader gets `signal`.
 * A file over its budget fails with a reason instead of holding the ingest worker (and, with retries, every other
 * project's ingestion behind it).
 */
export interface TimeBudget {
  readonly ms: number;
  readonly deadline: number;
  readonly now: () => number;
  /** Aborts when the deadline passes. */
  readonly signal: AbortSignal;
}

export function startTimeBudget(ms: number, now: () => number = Date.now): TimeBudget {
  return { ms, deadline: now() + ms, now, signal: AbortSignal.timeout(ms) };
}

/** Thrown when a file's {@link TimeBudget} runs out. */
export class TimeBudgetExceededError extends Error {
  constructor(readonly budgetMs: number) {
    super(
      `Reading the file took longer than the ${Math.round(budgetMs / 1000)} s allowed per file and was stopped; ` +
        'split it into smaller files.',
    );
    this.name = 'TimeBudgetExceededError';
  }
}

export function checkTimeBudget(budget: TimeBudget | undefined): void {
  if (budget && (budget.now() > budget.deadline || budget.signal.aborted)) throw new TimeBudgetExceededError(budget.ms);
}
