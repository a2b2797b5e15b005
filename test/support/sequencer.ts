import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file of 5 s or more took in a clean-clone `npm test` on the 2-core AMD host (2026-12-03, the files'
 * wall times in its CPU log, bench/history/2026-12-suite-time-final7.md): the estimate when Vitest has no timing of
 * its own yet (a fresh clone, CI). Shorter files are left out (they sort after, larger files first). Refresh the
 * table when a file's time changes a lot, above all for a new long file: one missing here sorts by its size, and a
 * short file that waits minutes (the capacity test, 80 lines and 200 s) then starts near the end and holds the run
 * open alone. An estimate that is off only moves a file in the queue, it never changes what runs.
 * `node bench/slow-files.mjs <vitest log>` prints the table from a run.
 */
export const slowFiles: Record<string, number> = {
  'own:test/e2e/capacity.test.ts': 237,
  'e2e:test/e2e/volume.test.ts': 113,
  'unit:test/infra/stack.test.ts': 94,
  'own:test/e2e/crash-points-webhooks.test.ts': 60,
  'own:test/e2e/overload.test.ts': 58,
  'own:test/e2e/console.test.ts': 49,
  'e2e:test/e2e/webhooks-pacing-recover.test.ts': 48,
  'own:test/e2e/crash-ledger.test.ts': 40,
  'unit:test/integration/ratelimit/dynamo-rate-limiter.test.ts': 38,
  'own:test/e2e/persistence.test.ts': 34,
  'own:test/e2e/webhook-notices.test.ts': 34,
  'bundles:test/e2e/extract.test.ts': 29,
  'own:test/e2e/inbound-order-crash.test.ts': 27,
  'own:test/e2e/startup-errors.test.ts': 27,
  'unit:test/unit/untrusted-input-fuzz.test.ts': 26,
  'bundles:test/e2e/knowledge.test.ts': 25,
  'e2e:test/e2e/poller.test.ts': 25,
  'e2e:test/e2e/webhooks-conversations.test.ts': 25,
  'unit:test/unit/pdf/decode-bound.test.ts': 25,
  'own:test/e2e/limits-flood.test.ts': 23,
  'own:test/e2e/bounded-input.test.ts': 22,
  'bulk:test/e2e/knowledge-uploads.test.ts': 21,
  'bundles:test/e2e/webhooks.test.ts': 21,
  'e2e:test/e2e/examples.test.ts': 21,
  'own:test/e2e/crash-points-messaging.test.ts': 21,
  'unit:test/integration/auth/rotation-races.test.ts': 21,
  'bundles:test/e2e/untrusted-input.test.ts': 20,
  'bulk:test/e2e/knowledge-scale.test.ts': 19,
  'e2e:test/e2e/mail-trust.test.ts': 19,
  'own:test/e2e/inbound-durability.test.ts': 19,
  'bundles:test/e2e/send.test.ts': 18,
  'e2e:test/e2e/console-webhooks.test.ts': 18,
  'model:test/e2e/console-playground.test.ts': 18,
  'unit:test/unit/pdf/prepare.test.ts': 18,
  'e2e:test/e2e/pagination.test.ts': 17,
  'own:test/e2e/webhooks-durability.test.ts': 17,
  'unit:test/integration/untrusted-parsing.test.ts': 17,
  'own:test/e2e/console-portal-https.test.ts': 16,
  'own:test/e2e/ai-ecosystem.test.ts': 15,
  'unit:test/integration/credits/credit-ledger.test.ts': 15,
  'unit:test/unit/extract/extract-pdf.test.ts': 15,
  'e2e:test/e2e/console-portal.test.ts': 14,
  'e2e:test/e2e/readme.test.ts': 14,
  'e2e:test/e2e/inbound-order.test.ts': 13,
  'unit:test/unit/knowledge/knowledge-format.test.ts': 13,
  'e2e:test/e2e/tenancy-matrix.test.ts': 12,
  'own:test/e2e/observability.test.ts': 12,
  'unit:test/integration/events/outbox.test.ts': 12,
  'unit:test/integration/pdf/dot-matrix-ocr.test.ts': 12,
  'unit:test/integration/webhooks/recover-pacing.test.ts': 12,
  'unit:test/unit/pdf/limits.test.ts': 12,
  'e2e:test/e2e/openapi-traffic.test.ts': 11,
  'e2e:test/e2e/webhook-destinations.test.ts': 11,
  'model:test/e2e/completion.test.ts': 11,
  'own:test/e2e/portal-expiry.test.ts': 11,
  'unit:test/unit/knowledge/knowledge-bounded.test.ts': 11,
  'unit:test/unit/pdf/extract-pages.test.ts': 11,
  'unit:test/unit/pdf/scan-quality.test.ts': 11,
  'bundles:test/e2e/ingress-sandbox-mail.test.ts': 10,
  'e2e:test/e2e/conversations.test.ts': 10,
  'own:test/e2e/single-loop.test.ts': 10,
  'unit:test/integration/polling/read-ahead.test.ts': 10,
  'unit:test/unit/openapi-document.test.ts': 10,
  'bundles:test/e2e/ingress.test.ts': 9,
  'bundles:test/e2e/send-errors.test.ts': 9,
  'own:test/e2e/ai-ecosystem-langchain.test.ts': 9,
  'unit:test/integration/kernel/merged-query.test.ts': 9,
  'unit:test/integration/messaging/channel-pacer.test.ts': 9,
  'e2e:test/e2e/console-destinations.test.ts': 8,
  'e2e:test/e2e/console-volume.test.ts': 8,
  'e2e:test/e2e/conversations-email.test.ts': 8,
  'e2e:test/e2e/limits.test.ts': 8,
  'e2e:test/e2e/openapi.test.ts': 8,
  'model:test/e2e/chat-completions.test.ts': 8,
  'model:test/e2e/completion-bots.test.ts': 8,
  'unit:test/integration/local/fauxqs-wakeups.test.ts': 8,
  'unit:test/integration/local/poller.test.ts': 8,
  'unit:test/integration/webhooks/queues.test.ts': 8,
  'bulk:test/e2e/extract-fuzz.test.ts': 7,
  'e2e:test/e2e/tenancy.test.ts': 7,
  'own:test/e2e/hot-path-ops.test.ts': 7,
  'unit:test/integration/local/aws/ses.test.ts': 7,
  'unit:test/unit/knowledge/knowledge-arrivals.test.ts': 7,
  'unit:test/unit/sdk-freshness.test.ts': 7,
  'bundles:test/e2e/completion-offline.test.ts': 6,
  'e2e:test/e2e/conventions.test.ts': 6,
  'e2e:test/e2e/integrations.test.ts': 6,
  'e2e:test/e2e/sdk.test.ts': 6,
  'model:test/e2e/model-edges.test.ts': 6,
  'unit:test/integration/knowledge/knowledge-ranges.test.ts': 6,
  'unit:test/integration/messaging/providers.test.ts': 6,
  'unit:test/integration/webhooks/delivery-store.test.ts': 6,
  'e2e:test/e2e/conversations-media.test.ts': 5,
  'unit:test/integration/tenancy/key-read-along.test.ts': 5,
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
