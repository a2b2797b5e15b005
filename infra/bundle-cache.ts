import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import {
  type BundleAnalysis,
  type BundleOptions,
  buildFunctions,
  defaultBundleOptions,
  projectRoot,
  reachesTesseract,
  TYPESCRIPT_CHILD_ARGS,
} from './bundling.ts';

/**
 * The built bundles kept between runs (tests, repeated synths, the local bundles mode) under node_modules/.cache, by
 * a hash of everything they are built from, and built at most once at a time across processes (a lock directory).
 */

const built = new Map<string, Map<string, BundleAnalysis>>();

/** Where built bundles are kept between runs (tests, repeated synths), by hash of everything they are built from. */
export const BUNDLE_CACHE = join(projectRoot, 'node_modules', '.cache', 'switchboard-functions');

/**
 * A hash of everything a bundle is built from: the sources under functions/, shared/ and infra/, the package
 * manifests and lock file. Equal hashes give identical bundles, so the build is reused.
 */
export function sourceHash(fns: readonly string[], options: BundleOptions = defaultBundleOptions): string {
  const hash = createHash('sha256');
  hash.update(fns.join('\n'));
  hash.update(JSON.stringify(options));
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) hash.update(`${relative(projectRoot, path)}\0`).update(readFileSync(path));
    }
  };
  for (const dir of ['functions', 'shared', 'infra']) visit(join(projectRoot, dir));
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(projectRoot, file)));
  // The console function ships the built console: a new build of it is a new bundle.
  const site = join(projectRoot, 'console', 'dist');
  if (fns.includes('console') && existsSync(join(site, 'index.html')) && existsSync(join(site, 'assets'))) {
    hash.update(readFileSync(join(site, 'index.html')));
    hash.update(readdirSync(join(site, 'assets')).sort().join('\n'));
  }
  return hash.digest('hex').slice(0, 20);
}

/**
 * {@link buildFunctions} for synchronous callers (CDK constructs are built synchronously; esbuild plugins need its
 * asynchronous API): runs it in a child Node process, unless the same sources were built before (then the cached
 * build is used). Builds live at a fixed depth inside the project, so source-map paths, and with them asset
 * hashes, do not depend on where the project is checked out.
 */
export function buildFunctionsSync(
  fns: readonly string[],
  options: BundleOptions = defaultBundleOptions,
): Map<string, BundleAnalysis> {
  const key = `${fns.join('\n')}\n${JSON.stringify(options)}`;
  const cached = built.get(key);
  if (cached) return cached;
  const hash = sourceHash(fns, options);
  const dir = join(BUNDLE_CACHE, hash);
  underLock(hash, dir, () => {
    if (options.ocrEngine === defaultBundleOptions.ocrEngine) buildInto(dir, hash, fns, options);
    else buildFromDefault(dir, hash, fns, options);
  });
  const stored = JSON.parse(readFileSync(join(dir, 'analysis.json'), 'utf8')) as Record<string, BundleAnalysis>;
  const analyses = new Map(Object.entries(stored).map(([fn, a]) => [fn, { ...a, dir: join(dir, fn) }]));
  built.set(key, analyses);
  return analyses;
}

/**
 * Runs `build` unless `dir` holds a finished build. Test files run in parallel processes: one builds, the others wait
 * for its result rather than build it too.
 */
function underLock(hash: string, dir: string, build: () => void): void {
  const lock = join(BUNDLE_CACHE, `${hash}.lock`);
  const done = () => existsSync(join(dir, 'analysis.json'));
  mkdirSync(BUNDLE_CACHE, { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  let locked = false;
  while (!done() && Date.now() < deadline) {
    locked = tryLock(lock);
    if (locked) break;
    sleepSync(200);
  }
  try {
    if (!done()) build();
  } finally {
    if (locked) rmSync(lock, { recursive: true, force: true });
  }
}

/** Takes the build lock (a directory: creating one is atomic); a lock older than 10 minutes is a dead process's. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
    } catch {
      // Released in the meantime.
    }
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Bundles in a child process (esbuild plugins need the asynchronous API) into `dir`, atomically. */
function buildInto(dir: string, hash: string, fns: readonly string[], options: BundleOptions): void {
  const tmp = join(BUNDLE_CACHE, `${hash}.tmp-${process.pid}`);
  runBuild(tmp, fns, options);
  settle(tmp, dir, hash);
}

/** Runs infra/build-functions.ts into `tmp` (the bundles and their `analysis.json`). */
function runBuild(tmp: string, fns: readonly string[], options: BundleOptions, tesseractTmp?: string): void {
  const child = spawnSync(
    process.execPath,
    [
      ...TYPESCRIPT_CHILD_ARGS,
      join(projectRoot, 'infra', 'build-functions.ts'),
      `--ocr-engine=${options.ocrEngine}`,
      ...(tesseractTmp ? [`--tesseract-outdir=${tesseractTmp}`] : []),
      tmp,
      ...fns,
    ],
    {
      cwd: projectRoot,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
  if (child.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    if (tesseractTmp) rmSync(tesseractTmp, { recursive: true, force: true });
    throw new Error(`Bundling the functions failed:\n${child.stderr || child.stdout}`);
  }
}

/** Moves a finished build from `tmp` to its place in the cache, atomically. */
function settle(tmp: string, dir: string, hash: string): void {
  try {
    renameSync(tmp, dir);
  } catch {
    // Another process finished the same build first: theirs is identical.
    rmSync(tmp, { recursive: true, force: true });
  }
  pruneCache(hash);
}

/**
 * The build for another OCR engine, from the default one: the engine changes only how `tesseract.js` resolves, so
 * a function whose default bundle never reached it bundles byte for byte the same either way and is copied; only
 * the functions that reach it (the OCR, model and search functions, 10 of 30) are built again. A test run builds both
 * engines (the stack tests' default synth, the bundles mode's local deployment): when neither is built yet, one
 * build makes both (infra/bundling.ts buildBothEngines: the 8 rebuilt in the default build's esbuild context);
 * when the default one is, the 8 are built in a build of their own.
 */
function buildFromDefault(dir: string, hash: string, fns: readonly string[], options: BundleOptions): void {
  const defaultHash = sourceHash(fns, defaultBundleOptions);
  const defaultDir = join(BUNDLE_CACHE, defaultHash);
  if (options.ocrEngine === 'tesseract') {
    underLock(defaultHash, defaultDir, () => {
      const tmp = join(BUNDLE_CACHE, `${defaultHash}.tmp-${process.pid}`);
      const tesseractTmp = join(BUNDLE_CACHE, `${hash}.tmp-${process.pid}`);
      runBuild(tmp, fns, defaultBundleOptions, tesseractTmp);
      settle(tesseractTmp, dir, hash);
      settle(tmp, defaultDir, defaultHash);
    });
    if (existsSync(join(dir, 'analysis.json'))) return;
  }
  const base = buildFunctionsSync(fns, defaultBundleOptions);
  const rebuilt = fns.filter((fn) => reachesTesseract(base.get(fn)!));
  const tmp = join(BUNDLE_CACHE, `${hash}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const analyses: Record<string, BundleAnalysis> = {};
  if (rebuilt.length) {
    const part = `${tmp}-part`;
    runBuild(part, rebuilt, options);
    renameSync(part, tmp);
    Object.assign(analyses, JSON.parse(readFileSync(join(tmp, 'analysis.json'), 'utf8')));
  }
  for (const fn of fns.filter((f) => !rebuilt.includes(f))) {
    cpSync(base.get(fn)!.dir, join(tmp, fn), { recursive: true });
    analyses[fn] = { ...base.get(fn)!, dir: join(tmp, fn) };
  }
  writeFileSync(join(tmp, 'analysis.json'), JSON.stringify(analyses));
  settle(tmp, dir, hash);
}

/** Keeps the newest few builds (an older checkout's build is likely to come back, a week-old one is not). */
function pruneCache(keep: string): void {
  // Half-built folders of processes that died.
  for (const name of readdirSync(BUNDLE_CACHE).filter((n) => n.includes('.tmp-'))) {
    const path = join(BUNDLE_CACHE, name);
    if (Date.now() - statSync(path).mtimeMs > 60 * 60_000) rmSync(path, { recursive: true, force: true });
  }
  const entries = readdirSync(BUNDLE_CACHE)
    .filter((name) => /^[0-9a-f]{20}$/.test(name) && name !== keep)
    .map((name) => ({ name, at: statSync(join(BUNDLE_CACHE, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of entries.slice(4)) rmSync(join(BUNDLE_CACHE, old.name), { recursive: true, force: true });
}
