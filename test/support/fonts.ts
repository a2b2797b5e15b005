import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';

/**
 * Fonts for tests that draw text with @napi-rs/canvas, loaded from files by name so the pixels do not depend on what
 * the machine has installed (a bare Debian has only DejaVu; Chromium's dependencies add Liberation and others, and a
 * generic `sans-serif` resolves to whichever is there).
 *
 * Liberation Sans comes with pdfjs-dist (`standard_fonts/`, GPL-2.0 with the font exception; used here, not
 * redistributed), which the product depends on, so it is present wherever the tests run.
 */
export const TEST_SANS = 'Switchboard Test Sans';

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
/** The font file behind {@link TEST_SANS}. */
export const TEST_SANS_FILE = join(pdfjsRoot, 'standard_fonts', 'LiberationSans-Regular.ttf');

let registered = false;

/** Registers {@link TEST_SANS} with the canvas library (once); throws if the file cannot be loaded. */
export function useTestFonts(): void {
  if (registered) return;
  if (!GlobalFonts.registerFromPath(TEST_SANS_FILE, TEST_SANS)) throw new Error(`cannot load ${TEST_SANS_FILE}`);
  registered = true;
}

/** A CSS font shorthand in {@link TEST_SANS}, registering it first. */
export function testFont(px: number): string {
  useTestFonts();
  return `${px}px "${TEST_SANS}"`;
}

/**
 * The DejaVu faces a bare Debian installs (fonts-dejavu-core), registered from their files under their own names;
 * the ones missing on this machine are left out (the caller says so, rather than testing another font by accident).
 */
export function debianFonts(folder = '/usr/share/fonts/truetype/dejavu'): { family: string; file: string }[] {
  const faces = [
    ['Switchboard Test DejaVu Sans', 'DejaVuSans.ttf'],
    ['Switchboard Test DejaVu Serif', 'DejaVuSerif.ttf'],
    ['Switchboard Test DejaVu Sans Mono', 'DejaVuSansMono.ttf'],
  ] as const;
  const found: { family: string; file: string }[] = [];
  for (const [family, name] of faces) {
    const file = join(folder, name);
    if (existsSync(file) && GlobalFonts.registerFromPath(file, family)) found.push({ family, file });
  }
  return found;
}
