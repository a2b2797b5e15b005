import type { Repo } from './repo.ts';

/** Folders of `shared/` that are libraries: every file is public, so they have no face. */
export const LIBRARIES = ['kernel', 'contract', 'http', 'openapi'];

/**
 * Areas whose conversion to the target shape (one face, routes with their docs, settings, wiring, sizes, comments,
 * tests mirrored; docs/architecture.md "Converting an area") has not happened yet. For them the old rules still
 * hold: other areas reach them through `index.ts` or `api/index.ts`, and folders outside `shared/` reach in anywhere.
 * This list only shrinks: the test fails when a listed area already meets the target, and the final state is empty.
 */
export const NOT_YET_CONVERTED: readonly string[] = [];

/**
 * File-level import cycles not broken yet (each: its files, sorted, joined by ` <-> `). Only shrinks; empty is the
 * target. A cycle found that is not listed fails.
 */
export const KNOWN_CYCLES: readonly string[] = [];

export type Folder = 'shared' | 'functions' | 'local' | 'infra' | 'console' | 'bench' | 'scripts' | 'test' | 'other';
export type Layer = 'face' | 'wiring' | 'settings' | 'api' | 'adapters' | 'core';

export interface Place {
  folder: Folder;
  /** For `shared/<x>/…`: `x`. */
  top?: string;
  /** For an area's file: its layer inside the area. */
  layer?: Layer;
  isArea: boolean;
}

const FOLDERS: Folder[] = ['shared', 'functions', 'local', 'infra', 'bench', 'scripts', 'test'];

export function placeOf(path: string): Place {
  if (path.startsWith('console/')) return { folder: 'console', isArea: false };
  const [first = '', top, second, ...rest] = path.split('/');
  const folder = (FOLDERS as string[]).includes(first) ? (first as Folder) : 'other';
  if (folder !== 'shared' || top === undefined) return { folder, isArea: false };
  if (LIBRARIES.includes(top)) return { folder, top, isArea: false };
  const layer: Layer =
    second === 'api'
      ? 'api'
      : second === 'adapters'
        ? 'adapters'
        : rest.length === 0 && second === 'index.ts'
          ? 'face'
          : rest.length === 0 && isWiringFile(second)
            ? 'wiring'
            : rest.length === 0 && second === 'settings.ts'
              ? 'settings'
              : 'core';
  return { folder, top, layer, isArea: true };
}

/**
 * The wiring layer: `wiring.ts`, and in an area too large for one such file, `<part>-wiring.ts` beside it (messaging's
 * `send-wiring.ts`), each under 400 lines.
 */
const isWiringFile = (name: string | undefined) => name === 'wiring.ts' || /^[a-z0-9-]+-wiring\.ts$/.test(name ?? '');

export const areasOf = (repo: Repo): string[] =>
  [...new Set(repo.files.map(placeOf).flatMap((p) => (p.isArea && p.top ? [p.top] : [])))].sort();

export const isConverted = (area: string, notYet: readonly string[] = NOT_YET_CONVERTED) => !notYet.includes(area);
