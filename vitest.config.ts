import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { GroupServiceReleaser } from './test/support/group-lifetime.ts';
import { COMPILE_CACHE_DIR } from './test/support/process.ts';
import { SlowFirstSequencer } from './test/support/sequencer.ts';

// The workers inherit it (read when a process starts): V8's code for every module a worker loads, kept for the next.
// Absolute, so that a process a test starts in another folder (the webhook receiver run outside the repository)
// writes no cache into a folder the test then removes.
process.env.NODE_COMPILE_CACHE ??= resolve(COMPILE_CACHE_DIR);

/**
 * The test groups (docs/testing.md). Unit, integration and infra tests need no service. E2e files call a running
 * service over HTTP, one service per group, booted once by the group's global setup (test/support/groups/*.ts) in a
 * child process of its own; every test makes its own projects, so files of a group never share data by accident.
 * The files in `own` start their own service because they restart it, crash it, count its DynamoDB calls or read
 * its logs.
 */
const groups = {
  e2e: [
    'test/e2e/console-portal.test.ts',
    'test/e2e/console-webhooks.test.ts',
    'test/e2e/conventions.test.ts',
    'test/e2e/conversations.test.ts',
    'test/e2e/conversations-email.test.ts',
    'test/e2e/conversations-media.test.ts',
    'test/e2e/examples.test.ts',
    'test/e2e/health.test.ts',
    'test/e2e/inbound-order.test.ts',
    'test/e2e/integrations.test.ts',
    'test/e2e/limits.test.ts',
    'test/e2e/local-aws.test.ts',
    'test/e2e/mail-trust.test.ts',
    'test/e2e/openapi-traffic.test.ts',
    'test/e2e/openapi.test.ts',
    'test/e2e/pagination.test.ts',
    'test/e2e/readme.test.ts',
    'test/e2e/sdk.test.ts',
    'test/e2e/send-events.test.ts',
    'test/e2e/tenancy-matrix.test.ts',
    'test/e2e/tenancy.test.ts',
    'test/e2e/volume.test.ts',
    'test/e2e/webhooks-conversations.test.ts',
    'test/e2e/webhooks-filter-health.test.ts',
    'test/e2e/webhooks-pacing-recover.test.ts',
    'test/e2e/webhook-destinations.test.ts',
    'test/e2e/poller.test.ts',
    'test/e2e/console-destinations.test.ts',
    'test/e2e/console-volume.test.ts',
  ],
  model: [
    'test/e2e/chat-completions.test.ts',
    'test/e2e/completion-bots.test.ts',
    'test/e2e/completion.test.ts',
    'test/e2e/console-playground.test.ts',
    'test/e2e/model-edges.test.ts',
  ],
  bulk: [
    'test/e2e/ai-ecosystem-offline.test.ts',
    'test/e2e/extract-fuzz.test.ts',
    'test/e2e/knowledge-scale.test.ts',
    'test/e2e/knowledge-uploads.test.ts',
  ],
  strict: ['test/e2e/destinations.test.ts', 'test/e2e/poller-limits.test.ts'],
  own: [
    // Its own tool-calling model double as the deployment's model and embeddings.
    'test/e2e/ai-ecosystem.test.ts',
    'test/e2e/ai-ecosystem-langchain.test.ts',
    // Starts on a DATA_DIR of its own (made 0755 first) and times the gateway out.
    'test/e2e/bounded-input.test.ts',
    // Records every AWS call of its own service on one event loop (bench/capacity.ts on a small workload).
    'test/e2e/capacity.test.ts',
    // Killed by their failpoints and restarted: processes of their own.
    'test/e2e/crash-points-messaging.test.ts',
    'test/e2e/crash-points-webhooks.test.ts',
    'test/e2e/crash-ledger.test.ts',
    'test/e2e/inbound-order-crash.test.ts',
    // Lists every project of the deployment, a page at a time, in the browser.
    'test/e2e/console.test.ts',
    'test/e2e/hot-path-ops.test.ts',
    'test/e2e/inbound-durability.test.ts',
    'test/e2e/observability.test.ts',
    // Throttles its own stand-ins (local/throttle.ts) and restarts on its data.
    'test/e2e/overload.test.ts',
    // Times one project's sends beside another's flood: a service no other file loads.
    'test/e2e/limits-flood.test.ts',
    'test/e2e/persistence.test.ts',
    // A portal link's code lifetime of a few seconds (PORTAL_CODE_SECONDS), to see one expire.
    'test/e2e/portal-expiry.test.ts',
    // An https PUBLIC_BASE_URL behind a TLS front of its own, for the portal's cross-site cookie.
    'test/e2e/console-portal-https.test.ts',
    'test/e2e/single-loop.test.ts',
    // Starts a second service beside its first on the same port, SMTP port and DATA_DIR.
    'test/e2e/startup-errors.test.ts',
    'test/e2e/webhooks-durability.test.ts',
    // A test SMTP server as NOTICE_SMTP_URL and WEBHOOK_FAILING_AFTER=3.
    'test/e2e/webhook-notices.test.ts',
  ],
  /**
   * Against the deploy bundles (`LOCAL_FUNCTIONS=bundles`: each function from the asset `cdk deploy` uploads, on a
   * thread of its own with the template's environment, every AWS call held against its role when the group stops).
   * They run once, here, not also in-process: the code is the same, only its packaging differs, and the bundles are
   * what runs on AWS. With test/e2e/bundles-mode.test.ts (the mode itself and the IAM check's teeth) they invoke
   * every function at least once: send and legacy-send (send*), fanout and deliver (webhooks*), ingest and search
   * (knowledge), extract and extract-uploads (extract*), message-status, inbound-twilio, inbound-whatsapp and both
   * inbound workers (ingress*), completion (completion-offline), the credit sweeper (its schedule); health, admin,
   * models, chat-completions, legacy-send and the fallback in bundles-mode.test.ts.
   */
  bundles: [
    'test/e2e/bundles-destinations.test.ts',
    'test/e2e/bundles-mode.test.ts',
    'test/e2e/completion-offline.test.ts',
    'test/e2e/extract.test.ts',
    'test/e2e/extract-uploads.test.ts',
    'test/e2e/ingress.test.ts',
    'test/e2e/ingress-sandbox-mail.test.ts',
    'test/e2e/ingress-whatsapp.test.ts',
    'test/e2e/knowledge.test.ts',
    'test/e2e/message-status.test.ts',
    'test/e2e/send.test.ts',
    'test/e2e/send-errors.test.ts',
    'test/e2e/untrusted-input.test.ts',
    'test/e2e/webhooks.test.ts',
    'test/e2e/webhooks-events.test.ts',
  ],
};

/** Unit files that need a process of their own: they break a once-per-process installation on purpose. */
const unitFilesAlone = ['test/unit/pdf/decode-bound-fail-closed.test.ts'];

// Every e2e file is in exactly one group: a file in none would silently never run.
const grouped = [...groups.e2e, ...groups.model, ...groups.bulk, ...groups.strict, ...groups.own, ...groups.bundles];
const e2eFiles = readdirSync('test/e2e')
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/e2e/${f}`);
const misplaced = e2eFiles.filter((f) => grouped.filter((g) => g === f).length !== 1);
if (misplaced.length) throw new Error(`e2e files in no group or in two (vitest.config.ts): ${misplaced.join(', ')}`);

export default defineConfig({
  test: {
    // Each file runs in its own process (per-process state, as each Lambda function has). E2e files mostly wait on
    // their group's service, which does the work in its own process: more files at once than cores keeps both busy.
    pool: 'forks',
    // A worker stays for a later file of its project (isolate: false below), not only for the next file in the queue:
    // patches/vitest+5.1.1.patch, ~65 fewer workers per run in the mixed order of ./test/support/sequencer.ts.
    // Six on two cores: the long files mostly wait (a scheduled send's minute, a pace, a throttled stand-in, their
    // group's service), and with four of them at once the cores idled 59-82 core-seconds a run, with six 12-13. Clean
    // clones took 347.88-367.27 s against 369.95-383.01 s with four, alternated
    // (bench/history/2026-12-suite-time-final16.md). Eight were no faster (and made a paced batch miss its deadline,
    // its retakes waking late again; a retake now leaves on its answer, bench/history/2026-12-suite-time-final17.md).
    maxWorkers: 6,
    // V8's memory reducer off in the test processes, as in the services they start (test/support/process.ts
    // TEST_SERVICE_NODE_ARGS): its full collections once a process goes quiet (a file waiting on its service) are CPU
    // for memory nothing needs back.
    // The test files and what they import run as Node runs them under `npm start`: native `import`, the project's
    // TypeScript hook (local/typescript-hooks.mjs: types stripped in the loading thread, kept on disk) and V8's compile
    // cache, instead of Vite's module runner (a transform request to the main process and an evaluation in a wrapper
    // per module, neither cached across workers). Nothing here uses `vi.mock`, which would need Vitest's loader.
    execArgv: ['--no-memory-reducer', '--import', './local/typescript-hooks.mjs'],
    experimental: { viteModuleRunner: false, nodeLoader: false },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Longest files first across all projects, so the two cores stay busy to the end (test/support/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // Each group's service stops after the group's last file, not at the end of the run.
    reporters: ['default', new GroupServiceReleaser()],
    // With TEST_CPU_LOG=<file>, each file's CPU is logged there (bench/test-cpu.mjs sums it up); nothing otherwise.
    setupFiles: ['test/support/cpu-log.ts'],
    // Logs and EMF metric lines off: the tests that read them turn them on for their own service.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/infra/**/*.test.ts'],
          exclude: unitFilesAlone,
          // Files share their worker's modules (the AWS SDK, pdfjs, zod are imported once per worker, not once per
          // file): ~60 s less CPU per run (bench/history/2026-11-test-suite-time.md). They build their own adapters
          // and fakes and leave no process state behind; a file that cannot share goes in `unitFilesAlone`.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'unit-alone', include: unitFilesAlone } },

      // A group's files call its service over HTTP and share no state but their worker's modules (imported once per
      // worker, not once per file: ~25 s less CPU for the e2e group alone, bench/history/2026-11-test-suite-time.md).
      // A file's first hook waits for its group's service to boot (test/support/service.ts, `sharedService`): a group's
      // service boots when its first file asks, the e2e and bundles groups' with the run (test/support/groups/*.ts).
      ...(['e2e', 'model', 'bulk', 'strict', 'bundles'] as const).map((name) => ({
        extends: true,
        test: {
          name,
          include: groups[name],
          globalSetup: [`test/support/groups/${name}.ts`],
          isolate: false,
          hookTimeout: 240_000,
        },
      })),
      // They start services of their own: from the runner's bundle (test/support/runner-bundle.ts).
      {
        extends: true,
        test: { name: 'own', include: groups.own, globalSetup: ['test/support/runner-bundle-setup.ts'] },
      },
    ],
  },
});
