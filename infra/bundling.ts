import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Metafile, Plugin } from 'esbuild';
import { shipPackages, unbundledPackages } from './unbundled-packages.ts';

/**
 * How every function is bundled: one esbuild run over all `functions/<fn>/handler.ts` entries (shared parsing),
 * ESM for Node 22, minified, external source maps, only what each entry imports. The CDK stack deploys exactly
 * these outputs and the bundle benchmark measures exactly these outputs.
 */

/** The repository root (package.json, package-lock.json, node_modules, functions/). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Node's arguments for a child process that runs the project's TypeScript (the stack's synthesis for the local bundles
 * mode, the functions' build, the OpenAPI writer): the local runner's loader (local/typescript-hooks.mjs: Node's own
 * type stripping in the loading thread, its output kept by file), not tsx, whose loader hooks answer every import of
 * the process (aws-cdk-lib's included) from a thread of their own. The same output; about 1 s less CPU per child.
 */
export const TYPESCRIPT_CHILD_ARGS = [
  '--import',
  join(projectRoot, 'local', 'typescript-hooks.mjs'),
  '--disable-warning=ExperimentalWarning',
];

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

/** The module {@link withoutTesseract} puts where `tesseract.js` is imported, as a metafile names it. */
export const TESSERACT_REFUSED = 'not-deployed:tesseract.js';

/**
 * `tesseract.js` resolved to a module that says why it is not there while `refuse()` is true, and left to esbuild
 * (an external import) otherwise: one esbuild context can then build both engines' bundles.
 */
function refusingTesseract(refuse: () => boolean): Plugin {
  return {
    name: 'without-tesseract',
    setup(build) {
      build.onResolve({ filter: /^tesseract\.js$/ }, () =>
        refuse() ? { path: 'tesseract.js', namespace: 'not-deployed' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'not-deployed' }, () => ({
        contents:
          "throw new Error('tesseract.js is not in this deployment (ocrEngine textract): set OCR_ENGINE=textract or deploy with ocrEngine tesseract');\n",
        loader: 'js',
      }));
    },
  };
}

/** For a Textract deployment: `tesseract.js` resolves to a module that says why it is not there. */
export const withoutTesseract: Plugin = refusingTesseract(() => true);

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
 * shipped packages), one esbuild build per function, and reports what each bundle is made of.
 *
 * Decision: one build per function with code splitting. Everything a function imports statically is in its
 * `index.mjs`; what it loads with `await import()` only on some requests (nodemailer for email channels, the S3
 * payload store for event bodies over 200 KB, the Bedrock client when a model is on Bedrock...) becomes a chunk of
 * its own, read and compiled only when first used, so a cold start never parses code the request does not run.
 * (A single build over all entries would share chunks between functions, and each Lambda asset is one folder.)
 *
 * The builds are one esbuild context rebuilt for each function in turn, its entry a name resolved to that function's
 * handler: a rebuild parses again only what changed, so the modules every function shares (the AWS SDK, zod, the
 * kernel) are parsed once, not once per function. The bundles are byte for byte those of separate builds, for about
 * a third less CPU (30 functions: 21-22 s against 29-38 s of esbuild's CPU on two cores).
 */
export async function buildFunctions(
  fns: readonly string[],
  outdir: string,
  options: BundleOptions = defaultBundleOptions,
): Promise<Map<string, BundleAnalysis>> {
  return (await bundleInOneContext(fns, outdir, options)).analyses;
}

/**
 * The default (Textract) deployment's bundles into `outdir` and the Tesseract deployment's into `tesseractOutdir`,
 * from the one esbuild context. The engine changes only how `tesseract.js` resolves, so a function whose Textract
 * bundle never reached it is the same bytes for both and is copied; the others (the OCR and model functions) are
 * rebuilt right after their Textract build with `tesseract.js` left external: a rebuild of the same context parses
 * nothing again, where a second build in a fresh process parses the whole import graph again. A test run needs
 * both (the stack tests' default synth, the bundles mode's local deployment).
 */
export async function buildBothEngines(
  fns: readonly string[],
  outdir: string,
  tesseractOutdir: string,
): Promise<{ textract: Map<string, BundleAnalysis>; tesseract: Map<string, BundleAnalysis> }> {
  const built = await bundleInOneContext(fns, outdir, { ocrEngine: 'textract' }, tesseractOutdir);
  return { textract: built.analyses, tesseract: built.tesseract };
}

/** Whether a Textract bundle reached `tesseract.js` (statically or in a chunk loaded on first use). */
export function reachesTesseract(analysis: BundleAnalysis): boolean {
  return TESSERACT_REFUSED in analysis.inputs || TESSERACT_REFUSED in analysis.lazyInputs;
}

async function bundleInOneContext(
  fns: readonly string[],
  outdir: string,
  options: BundleOptions,
  tesseractOutdir?: string,
): Promise<{ analyses: Map<string, BundleAnalysis>; tesseract: Map<string, BundleAnalysis> }> {
  const { context } = await import('esbuild');
  rmSync(outdir, { recursive: true, force: true });
  if (tesseractOutdir) {
    rmSync(tesseractOutdir, { recursive: true, force: true });
    mkdirSync(tesseractOutdir, { recursive: true });
  }
  const analyses = new Map<string, BundleAnalysis>();
  const tesseract = new Map<string, BundleAnalysis>();
  // A context writes to one folder: each function's build lands here, then moves to its own.
  const staging = join(outdir, '.build');
  let current = '';
  let refuse = options.ocrEngine === 'textract';
  const entry: Plugin = {
    name: 'function-entry',
    setup(build) {
      build.onResolve({ filter: /^switchboard:function-entry$/ }, () => ({ path: entryPoint(current) }));
    },
  };
  const builds = await context({
    ...esbuildOptions(options),
    // The same plugins as esbuildOptions(options), in the same order, the engine's switchable.
    plugins: [entry, ...bundlePlugins, refusingTesseract(() => refuse)],
    entryPoints: { index: 'switchboard:function-entry' },
    outdir: staging,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
  });
  const build = async (fn: string, dir: string) => {
    rmSync(staging, { recursive: true, force: true });
    const result = await builds.rebuild();
    renameSync(staging, dir);
    return analysisFromMetafile(result.metafile!, fn, dir);
  };
  try {
    for (const fn of fns) {
      current = fn;
      const analysis = await build(fn, join(outdir, fn));
      analyses.set(fn, analysis);
      if (tesseractOutdir && reachesTesseract(analysis)) {
        refuse = false;
        tesseract.set(fn, await build(fn, join(tesseractOutdir, fn)));
        refuse = true;
      }
    }
  } finally {
    await builds.dispose();
  }
  shipPackages(analyses.values());
  shipPackages(tesseract.values());
  if (fns.includes('console')) shipSite(join(outdir, 'console', 'site'));
  if (tesseractOutdir) {
    if (tesseract.has('console')) shipSite(join(tesseractOutdir, 'console', 'site'));
    for (const fn of fns.filter((f) => !tesseract.has(f))) {
      cpSync(analyses.get(fn)!.dir, join(tesseractOutdir, fn), { recursive: true });
      tesseract.set(fn, { ...analyses.get(fn)!, dir: join(tesseractOutdir, fn) });
    }
  }
  const inOrder = (built: Map<string, BundleAnalysis>) => new Map(fns.map((fn) => [fn, built.get(fn)!]));
  return { analyses: inOrder(analyses), tesseract: tesseractOutdir ? inOrder(tesseract) : tesseract };
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
    [...TYPESCRIPT_CHILD_ARGS, join(projectRoot, 'scripts', 'write-openapi.ts'), join(target, 'openapi.json')],
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
