/** Hash of the console's sources and toolchain versions (what decides whether a build is stale). */
export function consoleSourceHash(): string;
/** Builds console/ into console/dist/ unless the last build came from the same sources; true when it built. */
export function buildConsole(options?: { force?: boolean; quiet?: boolean }): Promise<boolean>;
