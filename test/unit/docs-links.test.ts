import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#infra/bundling.ts';

/**
 * Every relative link of the project's own Markdown (README, CHANGELOG, docs/, examples/, sdk/README) leads to a file
 * that exists and, with a `#fragment`, to a heading that exists: a renamed file or section shows here, not in a
 * reader's 404.
 */
const markdownFiles = [
  'README.md',
  'CHANGELOG.md',
  'BENCHMARKS.md',
  'sdk/README.md',
  ...walk('docs'),
  ...walk('examples'),
].filter((f) => existsSync(join(projectRoot, f)));

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(projectRoot, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') out.push(...walk(path));
    else if (entry.name.endsWith('.md')) out.push(path);
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

describe('Markdown links', () => {
  it.each(markdownFiles)('%s: every relative link resolves', (file) => {
    const absolute = join(projectRoot, file);
    const text = readFileSync(absolute, 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target!)) continue;
      const [path, fragment] = target!.split('#') as [string, string | undefined];
      const linked = path ? resolve(dirname(absolute), path) : absolute;
      if (!existsSync(linked)) {
        broken.push(`${target} (no ${relative(projectRoot, linked)})`);
        continue;
      }
      if (fragment && statSync(linked).isFile() && linked.endsWith('.md') && !anchorsOf(linked).has(fragment))
        broken.push(`${target} (no heading #${fragment} in ${relative(projectRoot, linked)})`);
    }
    expect(broken).toEqual([]);
  });
});
