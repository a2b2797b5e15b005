/**
 * The stack's tests, in one file so that they run in one process: aws-cdk-lib is imported, and a process's first
 * synthesis warmed up (~8 s of CPU; the next ones ~2 s), once instead of four times (~15 s of CPU per `npm test`,
 * bench/history/2026-11-test-suite-time.md). Each suite synthesizes the templates it reads itself; `npx vitest run test/infra -t
 * <name>` runs one of them.
 */
import './both-engines.ts';
import './stack.suite.ts';
import './stack-data-iam.suite.ts';
import './stack-ops.suite.ts';
import './nag.suite.ts';
import './deployment-choices.suite.ts';
import './bundles.suite.ts';
import './capacity.suite.ts';
