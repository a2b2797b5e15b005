import { runnerBundle } from './runner-bundle.ts';

/**
 * Global setup of the projects whose files start services (vitest.config.ts): the runner's bundle for this source
 * state, built before any file runs, named in LOCAL_RUNNER_BUNDLE for the processes and threads they start.
 */
export default async function setup(): Promise<void> {
  process.env.LOCAL_RUNNER_BUNDLE ??= await runnerBundle();
}
