// Builds the console (console/ → console/dist/) with Vite, only when its sources changed since the last build:
// `npm start` and `npm test` run it first, so a fresh clone needs no extra command. `--force` always builds.
// The built files are not committed: they are derived, and a stale copy in git would silently win over the source.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../console/', import.meta.url));
const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const outDir = join(root, 'dist');
const stampFile = join(outDir, '.source-hash');
// The files outside console/ that the last build bundled (shared/ lists the console reads, such as the event
// types), as repository-relative paths: a change to one of them makes the build stale too.
const sharedInputsFile = join(outDir, '.shared-inputs.json');

/** Hash of every console source file and every shared file it bundled (names and contents), and of the toolchain. */
export function consoleSourceHash() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (path === outDir || name === 'node_modules') continue;
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(root);
  const sharedInputs = existsSync(sharedInputsFile) ? JSON.parse(readFileSync(sharedInputsFile, 'utf8')) : [];
  for (const path of sharedInputs) {
    const file = join(repoRoot, path);
    hash
      .update(path)
      .update('\0')
      .update(existsSync(file) ? readFileSync(file) : 'missing')
      .update('\0');
  }
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const pkg of ['vite', 'preact']) {
    hash.update(
      JSON.parse(readFileSync(fileURLToPath(new URL(`../node_modules/${pkg}/package.json`, import.meta.url)), 'utf8'))
        .version,
    );
  }
  return hash.digest('hex');
}

/** Builds the console unless the last build came from the same sources. Returns whether it built. */
export async function buildConsole({ force = false, quiet = false } = {}) {
  if (!force && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === consoleSourceHash()) return false;
  const { build } = await import('vite');
  const result = await build({
    root,
    configFile: false,
    // Always the production build, whoever runs it: under vitest (NODE_ENV=test) the JSX transform would otherwise
    // emit its development form (a source position on every element, +60 % of main.js), and that build would then be
    // what `npm start` serves until the sources change.
    mode: 'production',
    logLevel: quiet ? 'warn' : 'info',
    // Relative asset URLs: the same files work under /console/ locally and under any prefix on S3 + CloudFront.
    base: './',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      // No inline scripts or data: URLs for modules: the pages run under a strict Content-Security-Policy.
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
      reportCompressedSize: !quiet,
      rollupOptions: { input: { main: join(root, 'index.html'), docs: join(root, 'docs.html') } },
    },
  });
  writeFileSync(sharedInputsFile, JSON.stringify(bundledOutsideConsole(result)));
  writeFileSync(stampFile, consoleSourceHash());
  return true;
}

/** The repository files outside console/ (and outside node_modules) that a build's chunks hold. */
function bundledOutsideConsole(result) {
  const paths = new Set();
  for (const output of [result].flat()) {
    for (const chunk of output.output) {
      for (const id of chunk.type === 'chunk' ? chunk.moduleIds : []) {
        const path = relative(repoRoot, id);
        if (!path.startsWith('..') && !path.startsWith('console/') && !path.includes('node_modules')) paths.add(path);
      }
    }
  }
  return [...paths].sort();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const built = await buildConsole({
    force: process.argv.includes('--force'),
    quiet: process.argv.includes('--quiet'),
  });
  console.log(
    built ? `console built in ${Date.now() - started} ms (console/dist)` : 'console is up to date (console/dist)',
  );
}
