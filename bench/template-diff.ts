/**
 * Is the synthesized CloudFormation template of two commits the same apart from asset hashes?
 *
 *   npx tsx bench/template-diff.ts <commitA> <commitB> [--settings '<json>'] [--keep]
 *
 * Each commit is checked out in a detached worktree of its own (node_modules shared by a symlink when its
 * package-lock.json is this checkout's or the other commit's, else `npm ci`), synthesized by the pinned CDK CLI
 * exactly as `npm run synth` does (cdk.json's app and context, cdk-nag on, offline), and its template normalised:
 * every 64-hex-digit asset hash (S3 keys, `aws:asset:path`, anything else that carries one) becomes `<asset-hash>`.
 * The two normalised templates are then compared; a difference is printed as a unified diff and the exit code is 1.
 * `--settings` is passed as the `switchboard` context (the deployment settings, e.g. '{"ocrEngine":"tesseract"}'),
 * to compare another shape of the stack. `--keep` leaves the worktrees and cloud assemblies in place for a closer look.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '#infra/bundling.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = args.splice(at, 2);
  return value;
};
const keep = args.includes('--keep');
if (keep) args.splice(args.indexOf('--keep'), 1);
const settings = flag('--settings');
const [commitA, commitB] = args;
if (!commitA || !commitB) {
  console.error("usage: npx tsx bench/template-diff.ts <commitA> <commitB> [--settings '<json>'] [--keep]");
  process.exit(2);
}

const git = (...gitArgs: string[]) => execFileSync('git', gitArgs, { cwd: projectRoot, encoding: 'utf8' }).trim();
const work = mkdtempSync(join(tmpdir(), 'switchboard-template-diff-'));
/** Installed node_modules by the lock file they were installed from: this checkout's, then any `npm ci` made here. */
const installs = new Map([[readFileSync(join(projectRoot, 'package-lock.json'), 'utf8').trim(), projectRoot]]);

/** Synthesizes `commit` in a worktree under `work` and returns its template, normalised. */
function synthesize(commit: string, name: string): { normalised: string; hashes: number } {
  const sha = git('rev-parse', '--verify', `${commit}^{commit}`);
  const tree = join(work, name);
  git('worktree', 'add', '--detach', tree, sha);
  const lock = git('show', `${sha}:package-lock.json`);
  const installed = installs.get(lock);
  if (installed) symlinkSync(join(installed, 'node_modules'), join(tree, 'node_modules'));
  else {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tree, stdio: 'inherit' });
    installs.set(lock, tree);
  }
  const out = join(work, `${name}.out`);
  const context = settings ? ['--context', `switchboard=${settings}`] : [];
  const started = performance.now();
  const run = spawnSync(
    join(tree, 'node_modules', '.bin', 'cdk'),
    ['synth', '--quiet', '--no-notices', '--no-version-reporting', '--output', out, ...context],
    {
      cwd: tree,
      encoding: 'utf8',
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
    },
  );
  if (run.status !== 0) throw new Error(`cdk synth at ${commit} failed:\n${run.stderr}\n${run.stdout}`);
  console.log(`${commit} (${sha.slice(0, 7)}): synthesized in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const text = readFileSync(join(out, 'Switchboard.template.json'), 'utf8');
  const hashes = new Set(text.match(/[0-9a-f]{64}/g) ?? []).size;
  // Parsed and written again, so that the comparison does not depend on the CLI's formatting.
  const normalised = `${JSON.stringify(JSON.parse(text), null, 2).replace(/[0-9a-f]{64}/g, '<asset-hash>')}\n`;
  writeFileSync(join(work, `${name}.normalised.json`), normalised);
  return { normalised, hashes };
}

let differs = false;
try {
  const a = synthesize(commitA, 'a');
  const b = synthesize(commitB, 'b');
  const resources = (t: string) => Object.keys((JSON.parse(t) as { Resources: object }).Resources).length;
  console.log(
    `${commitA}: ${resources(a.normalised)} resources, ${a.hashes} distinct asset hashes; ` +
      `${commitB}: ${resources(b.normalised)} resources, ${b.hashes} distinct asset hashes`,
  );
  if (a.normalised === b.normalised) {
    console.log('The templates are identical apart from asset hashes.');
  } else {
    differs = true;
    const diff = spawnSync('git', ['diff', '--no-index', '--no-color', 'a.normalised.json', 'b.normalised.json'], {
      cwd: work,
      encoding: 'utf8',
    });
    console.log(`The templates differ beyond asset hashes:\n${diff.stdout}`);
  }
} finally {
  if (keep) console.log(`Kept: ${work}`);
  else {
    for (const name of ['a', 'b']) {
      if (!existsSync(join(work, name))) continue;
      // The shared node_modules is a symlink: removed as a link first, so nothing can follow it.
      const modules = join(work, name, 'node_modules');
      if (lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(modules);
      git('worktree', 'remove', '--force', join(work, name));
    }
    rmSync(work, { recursive: true, force: true });
  }
}
process.exit(differs ? 1 : 0);
