import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loading: Promise<Pdfjs> | undefined;

/**
 * pdfjs-dist's legacy (Node) build, loaded once. Its worker module is imported here and handed to pdfjs through
 * `globalThis.pdfjsWorker`, so pdfjs runs it on this thread and never resolves a worker file path at run time:
 * a bundler sees a static import and the bundle works (a separate worker file is what breaks bundles).
 */
export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= (async () => {
    const [pdfjs, worker] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import('pdfjs-dist/legacy/build/pdf.worker.mjs')]);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= worker;
    return pdfjs;
  })();
  return loading;
}

export interface PdfjsAssets {
  /** `standard_fonts/`: glyphs of the 14 standard fonts, for PDFs that use them without embedding them. */
  standardFontDataUrl?: string;
  /** `cmaps/`: character maps of CJK fonts. */
  cMapUrl?: string;
  /** `wasm/`: JPEG 2000 and colour-profile decoders. */
  wasmUrl?: string;
}

let assets: PdfjsAssets | undefined;

/**
 * Where pdfjs finds its data files: the installed package, else a `pdfjs-assets/` folder next to the running
 * module (where a bundle ships copies of `standard_fonts/`, `cmaps/` and `wasm/`). Missing folders are left out:
 * text extraction works without them; only rendering of non-embedded fonts degrades.
 */
export function pdfjsAssets(): PdfjsAssets {
  if (assets) return assets;
  let root: string | undefined;
  try {
    root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  } catch {
    const beside = join(dirname(fileURLToPath(import.meta.url)), 'pdfjs-assets');
    if (existsSync(beside)) root = beside;
  }
  const folder = (name: string) => (root && existsSync(join(root, name)) ? `${join(root, name)}/` : undefined);
  assets = { standardFontDataUrl: folder('standard_fonts'), cMapUrl: folder('cmaps'), wasmUrl: folder('wasm') };
  return assets;
}
