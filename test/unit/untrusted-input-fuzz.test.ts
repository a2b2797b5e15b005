import fc from 'fast-check';
import { describe, it } from 'vitest';
import { FUZZERS, runWithinBudget } from '#test/support/fuzzers.ts';

/**
 * Fuzzing every parser of untrusted bytes with inputs built to hurt: PDF filter names, escapes,
 * abbreviations, chains, indirect objects and parameters, PDF object graphs with cycles and fan-out, MIME structure
 * around hostile HTML, delivery status reports that lie about whom a mail went to, nested and unterminated markup, long Markdown lines, multipart bodies, JSON and provider
 * payloads made of huge runs. Each input must give an outcome its parser may give, within the fuzzer's time and
 * memory budget (test/support/fuzzers.ts). These would have found the holes fixed before them: the `/Fl` and Brotli bombs, the
 * quadratic HTML in mail and knowledge, `**a ` in Markdown, 10 MB of `[` in a JSON body.
 *
 * A few seconds each here; `npx tsx bench/fuzz.ts` runs them longer and reports inputs per second and the slowest
 * input (bench/history/2026-11-untrusted-input.md).
 */
const RUNS: Record<string, number> = {
  'PDF filters': 12,
  'PDF object graphs': 3,
  'Mail (MIME)': 25,
  'Delivery status reports': 30,
  'HTML to text': 40,
  'Markdown to text': 40,
  Multipart: 40,
  'JSON bodies': 30,
  'Provider payloads': 40,
  'OpenAI-format requests': 40,
  'Offline model schemas': 60,
};

describe('untrusted input fuzzing', () => {
  it.each(FUZZERS.map((f) => [f.name, f] as const))(
    '%s',
    async (name, fuzzer) => {
      await fc.assert(
        fc.asyncProperty(fuzzer.inputs, async (input) => {
          await runWithinBudget(fuzzer, input);
        }),
        // A super-linear input costs seconds each time it is tried: report it rather than shrink it.
        { numRuns: RUNS[name] ?? 20, endOnFailure: true },
      );
    },
    120_000,
  );
});
