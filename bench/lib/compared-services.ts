// Two trees side by side for a same-run comparison: a commit of this repository unpacked into a scratch folder (with
// this tree's node_modules, the same lockfile) and services spawned from either tree, each on a data folder of its
// own, as `npm start` runs them.
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnService } from '#test/support/process.ts';

/** The repository's root (this tree). */
export const here = resolve(import.meta.dirname, '../..');

/** The short hash of a revision of this repository (`HEAD`, `main`, a hash). */
export function shortCommit(revision: string): string {
  return execFileSync('git', ['rev-parse', '--short', revision], { cwd: here }).toString().trim();
}

/** `revision`'s files unpacked into `dir` (made here), with this tree's node_modules linked in. */
export function unpackTree(revision: string, dir: string): string {
  mkdirSync(dir);
  execFileSync('sh', ['-c', `git archive ${revision} | tar -x -C ${dir}`], { cwd: here });
  symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

export interface ComparedService {
  name: string;
  child: ChildProcess;
  baseUrl: string;
  adminKey: string;
  output: () => string;
}

/** A service from the tree at `cwd`, logs off, on `<scratch>/data-<name>`; `env` adds to its settings. */
export async function spawnIn(
  scratch: string,
  name: string,
  cwd: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ComparedService> {
  const dataDir = join(scratch, `data-${name.replace(/\W+/g, '-')}`);
  mkdirSync(dataDir);
  const svc = await spawnService({ DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env }, 60_000, {
    cwd,
    nodeArgs,
  });
  return { name, ...svc };
}

/** A service of `baseline`'s tree and one of this tree, in that order (both named with their commits). */
export async function baselineAndThis(
  scratch: string,
  baseline: string,
  env: Record<string, string> = {},
): Promise<ComparedService[]> {
  const commit = shortCommit(baseline);
  const baseDir = unpackTree(commit, join(scratch, 'baseline'));
  const head = shortCommit('HEAD');
  return [
    await spawnIn(scratch, `baseline ${commit}`, baseDir, env),
    await spawnIn(scratch, `this ${head}`, here, env),
  ];
}
