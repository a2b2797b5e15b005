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
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Metafile, Plugin } from 'esbuild';

/**
 * How every function is bundled: one esbuild run over all `functions/<fn>/handler.ts` entries (shared parsing),
 * ESM for Node 22, minified, external source maps, only what each entry imports. The CDK stack deploys exactly
 * these outputs and the bundle benchmark measures exactly these outputs.
 */

/** The repository root (package.json, package-lock.json, node_modules, functions/). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const NODE_TARGET = 'node22';

/**
 * Bundled CommonJS dependencies call `require` for Node built-ins; an ESM bundle has none, so one is made from
 * `import.meta.url` (else: `Dynamic require of "node:https" is not supported`).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __sbCreateRequire } from 'node:module'; const require = __sbCreateRequire(import.meta.url);";

/** ESM entry points first: the AWS SDK's ESM build tree-shakes, its CJS build does not. */
export const MAIN_FIELDS = ['module', 'main'];

/**
 * Packages esbuild cannot inline: they load files from their own package folder at run time (native addons, wasm,
 * worker scripts, font or language data). A function whose code imports one gets it as an external import, and the
 * package with its runtime dependency closure is copied from node_modules into `node_modules/` beside the bundle.
 */
export interface UnbundledPackage {
  reason: string;
  /** Packages shipped with it although no code imports them by name (data read through a path, platform binaries). */
  alsoShip?: string[];
  /** A native addon fixes the function's architecture to the one of the platform package shipped. */
  architecture?: 'arm64' | 'x86_64';
  /** Only these paths of the package are shipped (the rest is viewers, types, other builds). */
  files?: string[];
}

export const unbundledPackages: Record<string, UnbundledPackage> = {
  '@napi-rs/canvas': {
    reason: 'native addon: loads a .node binary from its platform package',
    // The platform package npm installs on a Linux x64 build host (CI, this machine); its arm64 twin is not
    // installed there, so functions that render PDF pages run on x86_64.
    alsoShip: ['@napi-rs/canvas-linux-x64-gnu'],
    architecture: 'x86_64',
  },
  'tesseract.js': {
    reason: "starts a worker_thread from its own worker script and loads tesseract.js-core's wasm from node_modules",
    alsoShip: ['@tesseract.js-data/por', '@tesseract.js-data/eng'],
  },
  '@tesseract.js-data/por': { reason: 'language data read from its package folder' },
  '@tesseract.js-data/eng': { reason: 'language data read from its package folder' },
  'pdfjs-dist': {
    reason:
      'reads standard_fonts/, cmaps/, wasm/ and iccs/ from its package folder at run time; loaded only when a PDF is read',
    files: [
      'package.json',
      'LICENSE',
      'legacy/build/pdf.mjs',
      'legacy/build/pdf.worker.mjs',
      'standard_fonts',
      'cmaps',
      'wasm',
      'iccs',
    ],
  },
};

/**
 * zod's locale index re-exports 40-odd message locales (about 260 kB minified). The code imports zod through
 * `shared/kernel/validation/zod.ts` (`zod/mini`, tree-shaken, English selected there from `zod/locales`), so only English
 * is reached; should anything keep a whole zod namespace (`import { z } from 'zod'`, `z.locales`), the index still
 * resolves to English alone here: `z.locales.<other>` does not exist in a bundle (test/infra checks no code uses it).
 */
export const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return { path: resolve(args.resolveDir, args.path), namespace: 'zod-locales' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';\n",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * On Lambda the function role's credentials are always in the environment (AWS_ACCESS_KEY_ID, ...), which is the
 * first thing the SDK's default chain reads; the rest of the chain (SSO, ini files, web identity, IMDS and the
 * STS/SSO clients they bundle, about 100 kB) can never be reached there. Bundles get the environment provider alone.
 */
export const lambdaEnvironmentCredentials: Plugin = {
  name: 'lambda-environment-credentials',
  setup(build) {
    build.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, () => ({
      path: join(projectRoot, 'infra', 'shims', 'credential-provider-node.ts'),
    }));
  },
};

/**
 * `import ... from 'node:http'` in an ES module makes Node build the module's ESM facade, which reads every export,
 * among them the lazy getters that load Node's bundled undici (fetch, WebSocket): about 10 ms of a cold start on
 * the bench machine (bench/bundle.ts, CPU profile of the send bundle's import), for code no function uses through
 * `node:http`. The SDK's ESM build imports `node:http` that way; bundles get it through `require` (the banner's),
 * which reads only what is used.
 */
export const httpThroughRequire: Plugin = {
  name: 'http-through-require',
  setup(build) {
    build.onResolve({ filter: /^(node:)?https?$/ }, (args) => {
      if (args.namespace === 'builtin-through-require') return { path: args.path, external: true };
      return { path: args.path.replace(/^node:/, ''), namespace: 'builtin-through-require' };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin-through-require' }, (args) => ({
      contents: `module.exports = require('node:${args.path}');\n`,
      loader: 'js',
    }));
  },
};

export const bundlePlugins: Plugin[] = [zodEnglishOnly, lambdaEnvironmentCredentials, httpThroughRequire];

/** How the functions are bundled for one deployment: what differs with its settings. */
export interface BundleOptions {
  /**
   * `textract`: tesseract.js (its wasm core and language data, ~70 MB) is left out of every asset; the code that
   * would start it gets a module that refuses (the stack sets OCR_ENGINE=textract, so it is never reached).
   */
  ocrEngine: 'textract' | 'tesseract';
}

export const defaultBundleOptions: BundleOptions = { ocrEngine: 'textract' };

/** For a Textract deployment: `tesseract.js` resolves to a module that says why it is not there. */
export const withoutTesseract: Plugin = {
  name: 'without-tesseract',
  setup(build) {
    build.onResolve({ filter: /^tesseract\.js$/ }, () => ({ path: 'tesseract.js', namespace: 'not-deployed' }));
    build.onLoad({ filter: /.*/, namespace: 'not-deployed' }, () => ({
      contents:
        "throw new Error('tesseract.js is not in this deployment (ocrEngine textract): set OCR_ENGINE=textract or deploy with ocrEngine tesseract');\n",
      loader: 'js',
    }));
  },
};

function pluginsFor(options: BundleOptions): Plugin[] {
  return options.ocrEngine === 'textract' ? [...bundlePlugins, withoutTesseract] : bundlePlugins;
}

/** `@scope/name/sub/path` or `name/sub` → the package name. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export function entryPoint(fn: string): string {
  return join(projectRoot, 'functions', fn, 'handler.ts');
}

/** The esbuild options every function is deployed with. */
export function esbuildOptions(options: BundleOptions = defaultBundleOptions): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
    mainFields: MAIN_FIELDS,
    banner: { js: ESM_REQUIRE_BANNER },
    external: Object.keys(unbundledPackages),
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'error',
    absWorkingDir: projectRoot,
    plugins: pluginsFor(options),
  };
}

/**
 * The environment a deployed function sees at cold start, for importing a bundle outside Lambda (the bundle
 * benchmark, the infra tests): every setting present, plain keys so nothing calls Secrets Manager during the import.
 */
export function coldStartEnvironment(): Record<string, string> {
  const queueUrl = (name: string) => `https://sqs.us-east-1.amazonaws.com/000000000000/${name}`;
  return {
    PATH: process.env.PATH ?? '',
    NODE_OPTIONS: '--enable-source-maps',
    SWITCHBOARD_RUNTIME: 'aws',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'cold-start',
    AWS_SECRET_ACCESS_KEY: 'cold-start',
    TABLE_NAME: 'switchboard-cold-start',
    BUCKET_KNOWLEDGE: 'knowledge',
    BUCKET_TRANSFER: 'transfer',
    QUEUE_URL_EVENTS: queueUrl('events.fifo'),
    QUEUE_URL_DELIVERIES: queueUrl('deliveries'),
    QUEUE_URL_DELIVERIES_ORDERED: queueUrl('deliveries-ordered.fifo'),
    QUEUE_URL_INGEST: queueUrl('ingest'),
    QUEUE_URL_INBOUND: queueUrl('inbound'),
    QUEUE_URL_INBOUND_ORDERED: queueUrl('inbound-ordered.fifo'),
    QUEUE_URL_OUTBOUND: queueUrl('outbound'),
    PUBLIC_BASE_URL: 'https://cold-start.execute-api.us-east-1.amazonaws.com/prod',
    ADMIN_KEY: 'cold-start-admin-key-0123456789',
    SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  };
}

/** What one function's bundle is made of. */
export interface BundleAnalysis {
  fn: string;
  /** Minified bytes a cold start loads: `index.mjs` and the chunks it imports statically (source maps excluded). */
  bytes: number;
  /** Minified bytes of the chunks loaded on first use only (`chunks/`), not at a cold start. */
  lazyBytes: number;
  /** Source and package files in what a cold start loads, relative to the project root, with their bytes. */
  inputs: Record<string, number>;
  /** Source and package files only in the chunks loaded on first use. */
  lazyInputs: Record<string, number>;
  /** Unbundled packages the function imports (statically or dynamically). */
  unbundled: string[];
  /** Packages copied beside the bundle (the unbundled ones and their dependency closure). */
  shipped: string[];
  /** Folder holding `index.mjs`, `index.mjs.map` and `node_modules/` (the Lambda asset). */
  dir: string;
}

/**
 * Bundles the functions into `<outdir>/<fn>/index.mjs` (with `index.mjs.map`, lazy chunks under `chunks/` and the
 * shipped packages), one esbuild run per function, and reports what each bundle is made of.
 *
 * Decision: one build per function with code splitting. Everything a function imports statically is in its
 * `index.mjs`; what it loads with `await import()` only on some requests (nodemailer for email channels, the S3
 * payload store for event bodies over 200 KB, the Bedrock client when a model is on Bedrock...) becomes a chunk of
 * its own, read and compiled only when first used, so a cold start never parses code the request does not run.
 * (A single build over all entries would share chunks between functions, and each Lambda asset is one folder.)
 */
export async function buildFunctions(
  fns: readonly string[],
  outdir: string,
  options: BundleOptions = defaultBundleOptions,
): Promise<Map<string, BundleAnalysis>> {
  const { build } = await import('esbuild');
  rmSync(outdir, { recursive: true, force: true });
  const analyses = new Map<string, BundleAnalysis>();
  await Promise.all(
    fns.map(async (fn) => {
      const result = await build({
        ...esbuildOptions(options),
        entryPoints: { index: entryPoint(fn) },
        outdir: join(outdir, fn),
        outExtension: { '.js': '.mjs' },
        splitting: true,
        chunkNames: 'chunks/[name]-[hash]',
        metafile: true,
      });
      analyses.set(fn, analysisFromMetafile(result.metafile, fn, join(outdir, fn)));
    }),
  );
  for (const analysis of analyses.values()) {
    const shipped = shippedPackages(analysis.unbundled);
    if (shipped.missing.length) {
      throw new Error(
        `functions/${analysis.fn} needs ${shipped.missing.join(', ')} in node_modules to ship beside its bundle ` +
          '(install it for the Lambda platform: npm install --no-save --os=linux --cpu=x64 <package>)',
      );
    }
    copyPackages(shipped.packages, analysis.dir);
    analysis.shipped = shipped.packages;
  }
  if (fns.includes('console')) shipSite(join(outdir, 'console', 'site'));
  return new Map(fns.map((fn) => [fn, analyses.get(fn)!]));
}

/**
 * The console function serves the built console and the OpenAPI document from `site/` beside its bundle: the
 * console's build (`npm run build:console`, run by `npm start` and `npm test`; before `cdk deploy` when its sources
 * changed) and the document, written fresh from the code (a script run, so that the stack imports none of it).
 * Without a built console the function answers 503 "not built" for its pages.
 */
function shipSite(target: string): void {
  const dist = join(projectRoot, 'console', 'dist');
  mkdirSync(target, { recursive: true });
  if (existsSync(join(dist, 'index.html'))) {
    cpSync(dist, target, {
      recursive: true,
      filter: (src) =>
        !relative(dist, src)
          .split(/[\\/]/)
          .some((p) => p.startsWith('.')),
    });
  }
  const { PUBLIC_BASE_URL: _local, ...env } = process.env;
  const written = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(projectRoot, 'scripts', 'write-openapi.ts'), join(target, 'openapi.json')],
    { cwd: projectRoot, encoding: 'utf8', env },
  );
  if (written.status !== 0) throw new Error(`the OpenAPI document could not be written: ${written.stderr}`);
}

function analysisFromMetafile(metafile: Metafile, fn: string, dir: string): BundleAnalysis {
  const outputs = new Map(Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.mjs')));
  const entry = [...outputs].find(
    ([, output]) => output.entryPoint && resolve(projectRoot, output.entryPoint) === entryPoint(fn),
  );
  if (!entry) throw new Error(`functions/${fn}/handler.ts produced no bundle`);
  // What a cold start loads: the entry and the chunks it imports statically (code shared with a lazy chunk is split
  // into a chunk of its own that the entry imports); the rest is loaded by `await import()` on first use.
  const atColdStart = new Set<string>();
  const visit = (file: string) => {
    if (atColdStart.has(file) || !outputs.has(file)) return;
    atColdStart.add(file);
    for (const imp of outputs.get(file)!.imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
  };
  visit(entry[0]);
  const unbundled = new Set<string>();
  const inputs: Record<string, number> = {};
  const lazyInputs: Record<string, number> = {};
  let bytes = 0;
  let lazyBytes = 0;
  for (const [file, output] of outputs) {
    for (const imp of output.imports) {
      if (
        imp.external &&
        !builtinModules.includes(imp.path.replace(/^node:/, '').split('/')[0]!) &&
        unbundledPackages[packageName(imp.path)]
      ) {
        unbundled.add(packageName(imp.path));
      }
    }
    const into = atColdStart.has(file) ? inputs : lazyInputs;
    if (atColdStart.has(file)) bytes += output.bytes;
    else lazyBytes += output.bytes;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
      into[input] = (into[input] ?? 0) + bytesInOutput;
  }
  for (const input of Object.keys(inputs)) delete lazyInputs[input];
  return { fn, bytes, lazyBytes, inputs, lazyInputs, unbundled: [...unbundled].sort(), shipped: [], dir };
}

/**
 * The packages to copy beside a bundle: the unbundled packages it imports, what they bring along (`alsoShip`) and
 * their runtime dependency closure as installed in node_modules (dependencies, and optional dependencies that are
 * installed). Missing required packages are reported, never silently skipped.
 */
export function shippedPackages(
  unbundled: readonly string[],
  nodeModules = join(projectRoot, 'node_modules'),
): { packages: string[]; missing: string[] } {
  const seen = new Set<string>();
  const missing: string[] = [];
  const visit = (name: string, required: boolean) => {
    if (seen.has(name)) return;
    const manifest = join(nodeModules, name, 'package.json');
    if (!existsSync(manifest)) {
      if (required) missing.push(name);
      return;
    }
    seen.add(name);
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, true);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, false);
    for (const extra of unbundledPackages[name]?.alsoShip ?? []) visit(extra, true);
  };
  for (const name of unbundled) visit(name, true);
  return { packages: [...seen].sort(), missing };
}

/** The architecture a function must run on, fixed by the native packages it ships (arm64 when none). */
export function architectureFor(unbundled: readonly string[]): 'arm64' | 'x86_64' {
  const fixed = new Set(
    unbundled.map((p) => unbundledPackages[p]?.architecture).filter((a): a is 'arm64' | 'x86_64' => a !== undefined),
  );
  if (fixed.size > 1) throw new Error(`Native packages need different architectures: ${unbundled.join(', ')}`);
  return [...fixed][0] ?? 'arm64';
}

/** Copies the shipped packages (or their listed files) into `<dir>/node_modules/<name>`. */
export function copyPackages(
  packages: readonly string[],
  dir: string,
  nodeModules = join(projectRoot, 'node_modules'),
): void {
  for (const name of packages) {
    const from = join(nodeModules, name);
    const to = join(dir, 'node_modules', name);
    const files = unbundledPackages[name]?.files;
    if (!files) {
      cpSync(from, to, { recursive: true, dereference: true });
      continue;
    }
    for (const file of files) {
      if (!existsSync(join(from, file))) continue;
      mkdirSync(dirname(join(to, file)), { recursive: true });
      cpSync(join(from, file), join(to, file), { recursive: true, dereference: true });
    }
  }
}

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
  // Test files run in parallel processes: one builds, the others wait for its result rather than build it too.
  const lock = join(BUNDLE_CACHE, `${hash}.lock`);
  mkdirSync(BUNDLE_CACHE, { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  let locked = false;
  while (!existsSync(join(dir, 'analysis.json')) && Date.now() < deadline) {
    locked = tryLock(lock);
    if (locked) break;
    sleepSync(200);
  }
  try {
    if (!existsSync(join(dir, 'analysis.json'))) {
      if (options.ocrEngine === defaultBundleOptions.ocrEngine) buildInto(dir, hash, fns, options);
      else buildFromDefault(dir, hash, fns, options);
    }
  } finally {
    if (locked) rmSync(lock, { recursive: true, force: true });
  }
  const stored = JSON.parse(readFileSync(join(dir, 'analysis.json'), 'utf8')) as Record<string, BundleAnalysis>;
  const analyses = new Map(Object.entries(stored).map(([fn, a]) => [fn, { ...a, dir: join(dir, fn) }]));
  built.set(key, analyses);
  return analyses;
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
function runBuild(tmp: string, fns: readonly string[], options: BundleOptions): void {
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(projectRoot, 'infra', 'build-functions.ts'),
      `--ocr-engine=${options.ocrEngine}`,
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

/** The module {@link withoutTesseract} puts where `tesseract.js` is imported, as a metafile names it. */
const TESSERACT_REFUSED = 'not-deployed:tesseract.js';

/**
 * The build for another OCR engine, from the default one: the engine changes only how `tesseract.js` resolves, so
 * a function whose default bundle never reached it bundles byte for byte the same either way and is copied; only
 * the functions that reach it (the OCR and model functions, 8 of 27) are built again. A test run builds both
 * engines (the stack tests' default synth, the bundles mode's local deployment): this spares a second esbuild
 * run over every function and a second copy of their shipped packages.
 */
function buildFromDefault(dir: string, hash: string, fns: readonly string[], options: BundleOptions): void {
  const base = buildFunctionsSync(fns, defaultBundleOptions);
  const reaching = (a: BundleAnalysis) => TESSERACT_REFUSED in a.inputs || TESSERACT_REFUSED in a.lazyInputs;
  const rebuilt = fns.filter((fn) => reaching(base.get(fn)!));
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
