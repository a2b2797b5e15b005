import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { ESM_REQUIRE_BANNER, MAIN_FIELDS, NODE_TARGET, projectRoot } from '#infra/bundling.ts';
import { unbundledPackages } from '#infra/unbundled-packages.ts';
import { RUNNER_THREAD_ENTRIES } from '#local/threads.ts';

/**
 * The local runner as one esbuild bundle per thread entry (`main.js`, one per runner thread, and the groups' host
 * `service-host.js`, with shared chunks), for the services the tests start: the spawned ones (./process.ts), the
 * groups' hosts and the runner threads of every other (in-process services). Each thread of a service otherwise
 * loads the project's TypeScript and its dependencies module by module (the AWS SDK's CommonJS files read for their
 * exports, one by one): a threaded start costs about half the CPU from the bundle
 * (bench/history/2026-12-suite-time-final7.md). It is the same code: every module as the source has it, bundled as
 * Node would resolve it; `npm start` and the benchmarks keep the source.
 *
 * Built once per source state: the folder is named by a hash of every file the runner can load (local/, shared/,
 * functions/, the lock file, the patches and this builder), so a changed file makes a new bundle and a stale one is
 * never run.
 */

/** Packages left to Node: native addons and packages that read their own files (as in the deploy bundles), and the
 * stand-ins (dynalite, fauxqs, smtp-server), which load their own files and are patched in place. */
const EXTERNAL = [...Object.keys(unbundledPackages), 'dynalite', 'fauxqs', 'smtp-server', 'esbuild'];

const SOURCES = ['local', 'shared', 'functions', 'patches'];
/** The groups' service host (./global-service.ts runs it from the bundle) and what it imports. */
const HOST_FILES = ['service-host', 'iam', 'iam-actions', 'iam-policy'].map((f) => `test/support/${f}.ts`);
const FILES = ['package-lock.json', 'infra/bundling.ts', 'infra/unbundled-packages.ts', ...HOST_FILES];

/** A hash of everything the bundle is made from. */
export function runnerBundleKey(root = projectRoot): string {
  const hash = createHash('sha256');
  const builder = fileURLToPath(import.meta.url);
  const files = [
    ...SOURCES.flatMap((dir) =>
      existsSync(join(root, dir))
        ? readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
            .filter((e) => e.isFile())
            .map((e) => join(e.parentPath, e.name))
        : [],
    ),
    ...FILES.map((f) => join(root, f)).filter((f) => existsSync(f)),
    builder,
  ].sort();
  for (const file of files)
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  return hash.digest('hex').slice(0, 20);
}

/**
 * In the bundle every module keeps its own `import.meta.url` (the source file's), so the paths it makes (the
 * console's files, pdfjs's fonts, a sandbox's entry) are the same as from the source; and the functions, which the
 * runner imports by a name made at run time, are listed for esbuild as the literal imports they are.
 */
function asTheSourceLoadsIt(fns: string[]): Plugin {
  return {
    name: 'as-the-source-loads-it',
    setup(build) {
      build.onLoad({ filter: /\.(ts|mjs)$/ }, (args) => {
        if (args.path.includes('/node_modules/') || args.path.includes('/infra/')) return undefined;
        let text = readFileSync(args.path, 'utf8');
        if (args.path === join(projectRoot, 'local', 'load-function.ts')) {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the source's own template literal, matched as text.
          const dynamic = 'import(new URL(`../functions/${fn}/handler.ts`, import.meta.url).href)';
          if (!text.includes(dynamic)) throw new Error(`local/load-function.ts no longer imports ${dynamic}`);
          const table = fns.map((fn) => `${JSON.stringify(fn)}: () => import('../functions/${fn}/handler.ts')`);
          text = text.replace(dynamic, `({ ${table.join(', ')} } as Record<string, () => Promise<unknown>>)[fn]!()`);
        }
        text = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
        return { contents: text, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
}

/** Builds the bundle unless this source state's is there; returns its folder. */
export async function runnerBundle(): Promise<string> {
  const cache = join(projectRoot, 'node_modules', '.cache', 'switchboard-runner');
  const dir = join(cache, runnerBundleKey());
  if (existsSync(join(dir, 'package.json'))) return dir;
  const { build } = await import('esbuild');
  const fns = readdirSync(join(projectRoot, 'functions')).filter((f) => !f.startsWith('_'));
  // Built aside and renamed into place: a folder that is there is complete, and two builders do not mix outputs.
  const building = `${dir}.${process.pid}`;
  await build({
    absWorkingDir: projectRoot,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    mainFields: MAIN_FIELDS,
    banner: { js: ESM_REQUIRE_BANNER },
    splitting: true,
    logLevel: 'error',
    entryPoints: {
      ...Object.fromEntries(
        ['main', ...RUNNER_THREAD_ENTRIES].map((name) => [name, join(projectRoot, 'local', `${name}.ts`)]),
      ),
      'service-host': join(projectRoot, HOST_FILES[0]!),
    },
    outdir: building,
    external: EXTERNAL,
    plugins: [asTheSourceLoadsIt(fns)],
  });
  writeFileSync(join(building, 'package.json'), '{"type":"module"}\n');
  mkdirSync(cache, { recursive: true });
  try {
    renameSync(building, dir);
  } catch (error) {
    // Another builder put the same bundle there first.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(dir, 'package.json'))) throw error;
  }
  pruneOlderBundles(cache, dir);
  return dir;
}

/** Keeps this bundle and the one made before it (a run of the previous sources may still be going); the rest go. */
function pruneOlderBundles(cache: string, keep: string): void {
  const older = readdirSync(cache)
    .filter((name) => /^[0-9a-f]{20}$/.test(name) && join(cache, name) !== keep)
    .map((name) => ({ path: join(cache, name), mtime: statSync(join(cache, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { path } of older.slice(1)) rmSync(path, { recursive: true, force: true });
}
