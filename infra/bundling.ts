import { cpSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';

/**
 * How every function is bundled. The CDK stack (NodejsFunction), the bundle benchmark and the infra tests all read
 * these settings, so what is measured is what is deployed.
 */

/** The repository root (package.json, package-lock.json, node_modules, functions/). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const NODE_TARGET = 'node22';

/**
 * Bundled CommonJS dependencies call `require` for Node built-ins; an ESM bundle has none, so one is made from
 * `import.meta.url` (else: `Dynamic require of "node:https" is not supported`).
 */
export const ESM_REQUIRE_BANNER = "import { createRequire as __sbCreateRequire } from 'node:module'; const require = __sbCreateRequire(import.meta.url);";

/** ESM entry points first: the AWS SDK's ESM build tree-shakes, its CJS build does not. */
export const MAIN_FIELDS = ['module', 'main'];

/**
 * Packages esbuild cannot inline: they load files from their own package folder at run time (native addons, wasm,
 * worker scripts, font or language data). A function whose code imports one gets it as an external import and the
 * package, with its dependency closure from node_modules, is copied next to the bundle in `node_modules/`.
 */
export interface UnbundledPackage {
  reason: string;
  /** Packages shipped with it although no code imports them by name (data read through a path, platform binaries). */
  alsoShip?: string[];
  /** A native addon fixes the function's architecture to the platform package that is shipped. */
  architecture?: 'arm64' | 'x86_64';
}

export const unbundledPackages: Record<string, UnbundledPackage> = {
  '@napi-rs/canvas': {
    reason: 'native addon: loads a .node binary from its platform package',
    // The platform package installed on a Linux x64 build host (CI, this machine); its arm64 twin is not installed by
    // npm there, so functions that render pages run on x86_64.
    alsoShip: ['@napi-rs/canvas-linux-x64-gnu'],
    architecture: 'x86_64',
  },
  'tesseract.js': {
    reason: "starts a worker_thread from its own worker script and loads tesseract.js-core's wasm from node_modules",
    alsoShip: ['@tesseract.js-data/por', '@tesseract.js-data/eng'],
  },
  '@tesseract.js-data/por': { reason: 'language data read from its package folder' },
  '@tesseract.js-data/eng': { reason: 'language data read from its package folder' },
  'pdfjs-dist': { reason: 'reads standard_fonts/ and wasm/ from its package folder, resolved at run time' },
};

/** `@scope/name/sub/path` or `name/sub` → the package name. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export function entryPoint(fn: string): string {
  return join(projectRoot, 'functions', fn, 'handler.ts');
}

/** The esbuild options a function is deployed with (NodejsFunction passes the same ones on the command line). */
export function esbuildOptions(): BuildOptions {
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
    outExtension: { '.js': '.mjs' },
    logLevel: 'error',
    absWorkingDir: projectRoot,
  };
}

/** What one function's bundle is made of. */
export interface BundleAnalysis {
  fn: string;
  /** Minified bytes of the bundle (source map excluded). */
  bytes: number;
  /** Source files and package files inlined, relative to the project root, with their bytes in the output. */
  inputs: Record<string, number>;
  /** Unbundled packages the function imports (statically or dynamically). */
  unbundled: string[];
}

/**
 * Bundles every function in one esbuild run (shared parsing: about a second for all of them) without writing
 * anything, and reports each bundle's size, inputs and unbundled imports. The stack uses it to pick what to ship
 * beside each bundle (synchronously: constructs are built synchronously); the tests and the benchmark use it to
 * explain sizes.
 */
export function analyzeBundles(fns: readonly string[]): Map<string, BundleAnalysis> {
  const result = buildSync({
    ...esbuildOptions(),
    entryPoints: Object.fromEntries(fns.map((fn) => [fn, entryPoint(fn)])),
    outdir: join(projectRoot, 'cdk.out', '.analysis'),
    sourcemap: false,
    write: false,
    metafile: true,
  });
  return analysesFromMetafile(result.metafile, fns);
}

function analysesFromMetafile(metafile: Metafile, fns: readonly string[]): Map<string, BundleAnalysis> {
  const out = new Map<string, BundleAnalysis>();
  for (const output of Object.values(metafile.outputs)) {
    if (!output.entryPoint) continue;
    const fn = fns.find((f) => resolve(projectRoot, output.entryPoint!) === entryPoint(f));
    if (!fn) continue;
    const unbundled = new Set<string>();
    for (const imp of output.imports) {
      if (imp.external && unbundledPackages[packageName(imp.path)]) unbundled.add(packageName(imp.path));
    }
    const inputs = Object.fromEntries(Object.entries(output.inputs).map(([file, { bytesInOutput }]) => [file, bytesInOutput]));
    out.set(fn, { fn, bytes: output.bytes, inputs, unbundled: [...unbundled].sort() });
  }
  return out;
}

/**
 * The packages to copy beside a bundle: the unbundled packages it imports, what they bring along (`alsoShip`) and
 * their runtime dependency closure as installed in node_modules (dependencies, and optional dependencies that are
 * installed). Missing required packages are reported, never silently skipped.
 */
export function shippedPackages(unbundled: readonly string[], nodeModules = join(projectRoot, 'node_modules')): { packages: string[]; missing: string[] } {
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
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, true);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, false);
    for (const extra of unbundledPackages[name]?.alsoShip ?? []) visit(extra, true);
  };
  for (const name of unbundled) visit(name, true);
  return { packages: [...seen].sort(), missing };
}

/** The architecture a function must run on, fixed by the native packages it ships (arm64 when none). */
export function architectureFor(unbundled: readonly string[]): 'arm64' | 'x86_64' {
  const fixed = new Set(unbundled.map((p) => unbundledPackages[p]?.architecture).filter((a): a is 'arm64' | 'x86_64' => a !== undefined));
  if (fixed.size > 1) throw new Error(`Native packages need different architectures: ${unbundled.join(', ')}`);
  return [...fixed][0] ?? 'arm64';
}

/** Copies the shipped packages into a bundle's output folder (`<outputDir>/node_modules/<name>`). */
export function copyPackages(packages: readonly string[], outputDir: string, nodeModules = join(projectRoot, 'node_modules')): void {
  for (const name of packages) {
    cpSync(join(nodeModules, name), join(outputDir, 'node_modules', name), { recursive: true, dereference: true });
  }
}

/** For messages: a path relative to the project root. */
export function fromRoot(path: string): string {
  return relative(projectRoot, path);
}
