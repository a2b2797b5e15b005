import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each slow file took in a clean-clone `npm test` (bench/history/2026-12-test-suite-final.md), by
 * `<project>:<file>`: the estimate when Vitest has no timing of its own yet (a fresh clone, CI). Files under ~5 s are
 * left out (they sort after, larger files first). The files split since (send, conversations, ingress, the AI
 * ecosystem) carry their share of the whole file's seconds, as a run under load measured them. Refresh the table
 * when a file's time changes a lot, above all for a new long file: one missing here sorts by its size, and a short
 * file that waits minutes (the capacity test, 80 lines and 200 s) then starts near the end and holds the run open
 * alone. An estimate that is off only moves a file in the queue, it never changes what runs. `node bench/slow-files.mjs <vitest log>` prints the table from a run.
 */
export const slowFiles: Record<string, number> = {
  'own:test/e2e/capacity.test.ts': 203,
  'e2e:test/e2e/volume.test.ts': 94,
  'unit:test/infra/stack.test.ts': 89,
  'own:test/e2e/startup-errors.test.ts': 86,
  'own:test/e2e/crash-points-webhooks.test.ts': 68,
  'own:test/e2e/overload.test.ts': 65,
  'own:test/e2e/crash-ledger.test.ts': 61,
  'own:test/e2e/console.test.ts': 51,
  'bundles:test/e2e/knowledge.test.ts': 48,
  'e2e:test/e2e/webhooks-pacing-recover.test.ts': 47,
  'unit:test/unit/pdf/extract-pages.test.ts': 46,
  'own:test/e2e/crash-points-messaging.test.ts': 43,
  'bulk:test/e2e/knowledge-scale.test.ts': 42,
  'own:test/e2e/webhook-notices.test.ts': 42,
  'bundles:test/e2e/extract.test.ts': 35,
  'bulk:test/e2e/knowledge-uploads.test.ts': 30,
  'unit:test/integration/auth/rotation-races.test.ts': 30,
  'bundles:test/e2e/webhooks.test.ts': 28,
  'bundles:test/e2e/send.test.ts': 14,
  'bundles:test/e2e/send-errors.test.ts': 7,
  'e2e:test/e2e/webhooks-conversations.test.ts': 27,
  'e2e:test/e2e/conversations.test.ts': 10,
  'e2e:test/e2e/conversations-email.test.ts': 11,
  'e2e:test/e2e/conversations-media.test.ts': 5,
  'model:test/e2e/console-playground.test.ts': 25,
  'bundles:test/e2e/ingress-sandbox-mail.test.ts': 13,
  'bundles:test/e2e/ingress.test.ts': 7,
  'bundles:test/e2e/ingress-whatsapp.test.ts': 7,
  'e2e:test/e2e/poller.test.ts': 23,
  'own:test/e2e/bounded-input.test.ts': 23,
  'e2e:test/e2e/tenancy-matrix.test.ts': 22,
  'model:test/e2e/chat-completions.test.ts': 21,
  'own:test/e2e/inbound-durability.test.ts': 21,
  'own:test/e2e/inbound-order-crash.test.ts': 21,
  'own:test/e2e/persistence.test.ts': 21,
  'unit:test/integration/ratelimit/dynamo-rate-limiter.test.ts': 20,
  'own:test/e2e/limits-flood.test.ts': 18,
  'own:test/e2e/webhooks-durability.test.ts': 18,
  'unit:test/integration/untrusted-parsing.test.ts': 18,
  'unit:test/unit/pdf/decode-bound.test.ts': 18,
  'e2e:test/e2e/examples.test.ts': 17,
  'own:test/e2e/observability.test.ts': 17,
  'unit:test/unit/openapi-document.test.ts': 17,
  'e2e:test/e2e/console-webhooks.test.ts': 16,
  'own:test/e2e/ai-ecosystem.test.ts': 9,
  'own:test/e2e/ai-ecosystem-langchain.test.ts': 9,
  'bundles:test/e2e/untrusted-input.test.ts': 14,
  'e2e:test/e2e/console-portal.test.ts': 14,
  'unit:test/unit/pdf/prepare.test.ts': 14,
  'unit:test/unit/untrusted-input-fuzz.test.ts': 14,
  'unit:test/integration/pdf/dot-matrix-ocr.test.ts': 13,
  'e2e:test/e2e/mail-trust.test.ts': 12,
  'unit:test/unit/extract/extract-pdf.test.ts': 12,
  'e2e:test/e2e/inbound-order.test.ts': 11,
  'e2e:test/e2e/pagination.test.ts': 11,
  'unit:test/integration/webhooks/recover-pacing.test.ts': 11,
  'unit:test/unit/pdf/scan-quality.test.ts': 11,
  'e2e:test/e2e/readme.test.ts': 10,
  'model:test/e2e/completion.test.ts': 10,
  'unit:test/integration/events/outbox.test.ts': 10,
  'unit:test/unit/pdf/limits.test.ts': 10,
  'unit:test/integration/kernel/merged-query.test.ts': 9,
  'unit:test/integration/knowledge/knowledge-ranges.test.ts': 9,
  'unit:test/unit/sdk-freshness.test.ts': 9,
  'bulk:test/e2e/extract-fuzz.test.ts': 8,
  'e2e:test/e2e/openapi-traffic.test.ts': 8,
  'e2e:test/e2e/webhook-destinations.test.ts': 8,
  'model:test/e2e/completion-bots.test.ts': 8,
  'own:test/e2e/portal-expiry.test.ts': 8,
  'unit:test/integration/credits/credit-ledger.test.ts': 7,
  'unit:test/integration/messaging/channel-pacer.test.ts': 7,
  'bundles:test/e2e/bundles-mode.test.ts': 6,
  'unit:test/integration/local/poller.test.ts': 6,
  'e2e:test/e2e/limits.test.ts': 5,
  'own:test/e2e/hot-path-ops.test.ts': 5,
  'unit:test/integration/completion/complete-text-credits.test.ts': 5,
  'unit:test/unit/knowledge/knowledge-arrivals.test.ts': 5,
  'unit:test/unit/messaging/payloads.test.ts': 5,
};

/**
 * A file not in {@link slowFiles} yet (a new one): a file of `own` starts a service of its own and often waits on it
 * (restarts, timers), so it is placed with the middling files rather than among the sub-second unit files, where a
 * long one would hold the run's end alone.
 */
const UNLISTED_SECONDS: Record<string, number> = { own: 20 };

/**
 * Longest files first, across all projects. Vitest's own order runs the projects one after another (alphabetically:
 * the e2e groups, then `own`, then the 100-odd unit files) with larger files first inside each; on two cores that
 * leaves the CPU idle while the e2e files wait on their services, and then queues every CPU-bound unit file at the
 * end. Mixed, the waiting files start first (the crash-point files are the longest chains: two services per test)
 * and the CPU-bound files fill the cores around them; the last files to start are the short ones (longest
 * processing time first, the classic rule for finishing a set of jobs on a few machines early).
 *
 * The estimate is Vitest's own timing of the file's last run when it has one, else {@link slowFiles}, else
 * {@link UNLISTED_SECONDS} by project (ties: larger files first); failed files of the last run still go first, as
 * Vitest does.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = new Map(
      files.map((spec) => {
        const last = this.ctx.cache.getTestSpecificationResult(spec);
        const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
        const seconds = slowFiles[key] ?? UNLISTED_SECONDS[spec.project.name] ?? 0;
        return [spec, { failed: last?.failed ?? false, ms: last?.duration ?? seconds * 1000 }];
      }),
    );
    const size = new Map(files.map((spec) => [spec, statSync(spec.moduleId).size]));
    return [...files].sort((a, b) => {
      const ea = estimate.get(a)!;
      const eb = estimate.get(b)!;
      if (ea.failed !== eb.failed) return ea.failed ? -1 : 1;
      return eb.ms - ea.ms || size.get(b)! - size.get(a)!;
    });
  }
}
