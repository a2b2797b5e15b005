import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/**
 * A group's service stops once the last file of its group has finished, not at the end of the whole run (it starts
 * when its first file asks for it: ./global-service.ts, `groupSetup`).
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
  /** Stops the group's service; idempotent: the first call's promise is returned to every caller. */
  stop(): Promise<void>;
}

/**
 * Written beside the info file by a group's file that waits for the group's service (./service.ts): the group's
 * setup boots the service then, if it has not yet.
 */
export function bootRequest(infoFile: string): string {
  return `${infoFile}.boot`;
}

const REGISTRY = Symbol.for('switchboard.test.group-services');

function registry(): Map<string, GroupEntry> {
  const holder = globalThis as { [REGISTRY]?: Map<string, GroupEntry> };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/** Called by a group's global setup: `stop` runs once, whoever calls it first. */
export function registerGroupService(project: string, stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  const once = () => {
    stopping ??= stop();
    return stopping;
  };
  registry().set(project, { stop: once });
  return once;
}

/**
 * Counts each project's files as they finish and stops the project's service after its last one. A failure to stop
 * (in bundles mode: an AWS call the deployed roles would deny) is not lost: the global setup's teardown awaits the
 * same promise at the end of the run and reports it there.
 */
export class GroupServiceReleaser implements Reporter {
  private readonly left = new Map<string, number>();

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.left.clear();
    for (const spec of specifications) this.left.set(spec.project.name, (this.left.get(spec.project.name) ?? 0) + 1);
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
