import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { SiteFiles } from '../site-files.ts';

/**
 * The site's files in a folder: never outside it, never a dot-file (the console build's own records), assets
 * (hashed names) read once then kept.
 */
export function directoryFiles(dir: string): SiteFiles {
  const root = resolve(dir);
  const cache = new Map<string, Buffer | undefined>();
  return {
    read(relative) {
      if (cache.has(relative)) return cache.get(relative);
      let decoded: string;
      try {
        decoded = decodeURIComponent(relative);
      } catch {
        return undefined;
      }
      const file = resolve(root, decoded);
      const hidden = decoded.split('/').some((segment) => segment.startsWith('.'));
      const found =
        !hidden && file.startsWith(root + sep) && existsSync(file) && statSync(file).isFile()
          ? readFileSync(file)
          : undefined;
      // Hashed assets never change; pages and the document are read again (a local run rebuilds them).
      if (relative.startsWith('assets/') && cache.size < 500) cache.set(relative, found);
      return found;
    },
  };
}

/** The first of `dirs` that holds a built console (its `index.html`), else the first. */
export function firstBuilt(dirs: readonly string[]): string {
  return dirs.find((d) => existsSync(resolve(d, 'index.html'))) ?? dirs[0]!;
}
