import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's node_modules, where the shipped packages are copied from. */
const nodeModulesDir = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'node_modules');

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
 * The packages to copy beside a bundle: the unbundled packages it imports, what they bring along (`alsoShip`) and
 * their runtime dependency closure as installed in node_modules (dependencies, and optional dependencies that are
 * installed). Missing required packages are reported, never silently skipped.
 */
export function shippedPackages(
  unbundled: readonly string[],
  nodeModules = nodeModulesDir,
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
export function copyPackages(packages: readonly string[], dir: string, nodeModules = nodeModulesDir): void {
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

/** Copies beside each bundle the unbundled packages it imports, with their dependency closure. */
export function shipPackages(
  built: Iterable<{ fn: string; unbundled: string[]; dir: string; shipped: string[] }>,
): void {
  for (const analysis of built) {
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
}
