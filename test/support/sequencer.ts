import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each slow file took in a clean-clone `npm test` (bench/history/2026-11-test-suite-time.md), by `<project>:<file>`: the
 * estimate when Vitest has no timing of its own yet (a fresh clone, CI). Files under ~5 s are left out (they sort
 * after, larger files first). Refresh a line when a file's time changes a lot; an estimate that is off only moves
 * a file in the queue, it never changes what runs.
 */
export const slowFiles: Record<string, number> = {
  'own:test/e2e/crash-points-webhooks.test.ts': 80,
  'own:test/e2e/crash-points-messaging.test.ts': 55,
  'unit:test/infra/stack.test.ts': 130,
  'own:test/e2e/console.test.ts': 70,
  'own:test/e2e/crash-ledger.test.ts': 18,
  'e2e:test/e2e/webhooks-pacing-recover.test.ts': 47,
  'bulk:test/e2e/knowledge-uploads.test.ts': 36,
  'e2e:test/e2e/webhooks-conversations.test.ts': 35,
  'e2e:test/e2e/examples.test.ts': 30,
  'own:test/e2e/startup-errors.test.ts': 30,
  'e2e:test/e2e/readme.test.ts': 25,
  'bundles:test/e2e/extract.test.ts': 33,
  'own:test/e2e/bounded-input.test.ts': 31,
  'own:test/e2e/ai-ecosystem.test.ts': 28,
  'bundles:test/e2e/knowledge.test.ts': 24,
  'own:test/e2e/webhooks-durability.test.ts': 23,
  'unit:test/unit/pdf/extract-pages.test.ts': 23,
  'own:test/e2e/webhook-notices.test.ts': 22,
  'unit:test/unit/pdf/decode-bound.test.ts': 22,
  'own:test/e2e/persistence.test.ts': 21,
  'unit:test/integration/auth/rotation-races.test.ts': 19,
  'bundles:test/e2e/webhooks.test.ts': 18,
  'unit:test/unit/extract/extract-pdf.test.ts': 18,
  'model:test/e2e/console-playground.test.ts': 18,
  'unit:test/unit/openapi-document.test.ts': 18,
  'bulk:test/e2e/knowledge-scale.test.ts': 18,
  'bundles:test/e2e/bundles-mode.test.ts': 12,
  'own:test/e2e/inbound-durability.test.ts': 15,
  'bundles:test/e2e/ingress.test.ts': 14,
  'e2e:test/e2e/conversations.test.ts': 14,
  'bundles:test/e2e/send.test.ts': 13,
  'unit:test/integration/untrusted-parsing.test.ts': 13,
  'unit:test/unit/untrusted-input-fuzz.test.ts': 13,
  'unit:test/unit/pdf/limits.test.ts': 12,
  'model:test/e2e/chat-completions.test.ts': 12,
  'own:test/e2e/observability.test.ts': 11,
  'unit:test/unit/messaging/payloads.test.ts': 11,
  'e2e:test/e2e/console-webhooks.test.ts': 11,
  'bulk:test/e2e/extract-fuzz.test.ts': 10,
  'unit:test/integration/webhooks/recover-pacing.test.ts': 9,
  'own:test/e2e/hot-path-ops.test.ts': 9,
  'unit:test/unit/pdf/scan-quality.test.ts': 9,
  'own:test/e2e/single-loop.test.ts': 8,
  'unit:test/integration/local/poller.test.ts': 8,
  'unit:test/unit/pdf/prepare.test.ts': 8,
  'unit:test/unit/sdk-freshness.test.ts': 8,
  'bundles:test/e2e/untrusted-input.test.ts': 8,
  'e2e:test/e2e/pagination.test.ts': 8,
  'model:test/e2e/completion.test.ts': 7,
  'unit:test/unit/knowledge/knowledge-arrivals.test.ts': 7,
  'bundles:test/e2e/completion-offline.test.ts': 7,
  'unit:test/integration/pdf/dot-matrix-ocr.test.ts': 7,
  'unit:test/integration/s3/large-objects.test.ts': 6,
  'unit:test/integration/ratelimit/dynamo-rate-limiter.test.ts': 6,
  'unit:test/integration/completion/complete-text-credits.test.ts': 5,
};

/**
 * Longest files first, across all projects. Vitest's own order runs the projects one after another (alphabetically:
 * the e2e groups, then `own`, then the 100-odd unit files) with larger files first inside each; on two cores that
 * leaves the CPU idle while the e2e files wait on their services, and then queues every CPU-bound unit file at the
 * end. Mixed, the waiting files start first (the crash-point files are the longest chains: two services per test)
 * and the CPU-bound files fill the cores around them; the last files to start are the short ones (longest
 * processing time first, the classic rule for finishing a set of jobs on a few machines early).
 *
 * The estimate is Vitest's own timing of the file's last run when it has one, else {@link slowFiles}, else none
 * (those come last, larger files first); failed files of the last run still go first, as Vitest does.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = new Map(
      files.map((spec) => {
        const last = this.ctx.cache.getTestSpecificationResult(spec);
        const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
        return [spec, { failed: last?.failed ?? false, ms: last?.duration ?? (slowFiles[key] ?? 0) * 1000 }];
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
