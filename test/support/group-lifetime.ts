import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/**
 * A group's service starts with the first file of its group and stops once the last one has finished, not with the
 * whole run.
 *
 * Vitest stops a project's global setup only when every project is done, and the files run longest first across all
 * projects (./sequencer.ts), so a group whose files ended early would otherwise idle for minutes beside the unit
 * files that finish the run: each idle service costs ~2.5 % of a core (its pollers' long polls and the SQS
 * stand-in's timers), five of them ~40 s of CPU per `npm test` on two cores (bench/history/2026-11-test-suite-time.md).
 *
 * The global setups (./global-service.ts) and this reporter run in Vitest's main process but are loaded by
 * different module loaders, so they meet through one registry on `globalThis`, keyed by project name.
 */
interface GroupEntry {
  /** Starts the group's service if it is not started yet (the group's first file is about to run). */
  boot(): void;
  /** Stops the group's service; idempotent: the first call's promise is returned to every caller. */
  stop(): Promise<void>;
}

const REGISTRY = Symbol.for('switchboard.test.group-services');

function registry(): Map<string, GroupEntry> {
  const holder = globalThis as { [REGISTRY]?: Map<string, GroupEntry> };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/** Called by a group's global setup: `stop` runs once, whoever calls it first. */
export function registerGroupService(project: string, service: GroupEntry): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  const once = () => {
    stopping ??= service.stop();
    return stopping;
  };
  registry().set(project, { boot: service.boot, stop: once });
  return once;
}

/**
 * Starts a project's service as its first file starts, counts its files as they finish and stops the service after
 * its last one. A failure to stop (in bundles mode: an AWS call the deployed roles would deny) is not lost: the global
 * setup's teardown awaits the same promise at the end of the run and reports it there.
 */
export class GroupServiceReleaser implements Reporter {
  private readonly left = new Map<string, number>();

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.left.clear();
    for (const spec of specifications) this.left.set(spec.project.name, (this.left.get(spec.project.name) ?? 0) + 1);
  }

  /** Sent by the worker as it starts the file, before the file's first hook waits for the service. */
  onTestModuleQueued(testModule: TestModule): void {
    registry().get(testModule.project.name)?.boot();
  }

  onTestModuleEnd(testModule: TestModule): void {
    const project = testModule.project.name;
    const left = (this.left.get(project) ?? 0) - 1;
    this.left.set(project, left);
    if (left > 0) return;
    const entry = registry().get(project);
    // Caught here, rethrown by the teardown (which awaits the same promise).
    entry?.stop().catch(() => {});
  }
}
