import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installDecodeBound } from './decode-bound.ts';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfjsWorkerModule = typeof import('pdfjs-dist/legacy/build/pdf.worker.mjs');

let loading: Promise<Pdfjs> | undefined;
let workerModule: PdfjsWorkerModule | undefined;

/**
 * pdfjs-dist's legacy (Node) build, loaded once, with the decode bound installed (./decode-bound.ts): no document is
 * opened before its self-test passed, and if it fails every later call rejects (PDFs are refused, never read
 * unbounded). Its worker module is imported here and handed to pdfjs through `globalThis.pdfjsWorker`, so pdfjs runs
 * it on this thread and never resolves a worker file path at run time: a bundler sees a static import and the bundle
 * works (a separate worker file is what breaks bundles).
 */
export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= (async () => {
    const [pdfjs, worker] = await Promise.all([
      import('pdfjs-dist/legacy/build/pdf.mjs'),
      import('pdfjs-dist/legacy/build/pdf.worker.mjs'),
    ]);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= worker;
    workerModule = worker;
    await installDecodeBound({
      version: pdfjs.version,
      async openAndClose(bytes) {
        const { worker: probeWorker, dispose } = workerOnThisThread(pdfjs, worker);
        const task = pdfjs.getDocument({
          worker: probeWorker,
          data: bytes,
          verbosity: pdfjs.VerbosityLevel.ERRORS,
        });
        try {
          await (await task.promise).getPage(1);
        } finally {
          await task.destroy();
          dispose();
        }
      },
    });
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

/**
 * A pdfjs "worker" on this thread, joined to the document by a port that copies messages in plain JavaScript.
 *
 * pdfjs's own in-thread (fake) worker passes every message through `structuredClone`, Node's C++ serializer: a fifth
 * of the CPU time of text extraction goes there, on dozens of small objects per page. The copy below is the same
 * deep copy for what pdfjs sends (plain objects, arrays, typed arrays, primitives); transferred buffers are handed
 * over as a transfer would; anything else (Map, Error, class instances, cycles) goes through `structuredClone` as
 * before. The copy is still needed: pdfjs reuses some arrays right after sending them (operator list chunks).
 */
export async function inThreadWorker(): Promise<{ worker: InstanceType<Pdfjs['PDFWorker']>; dispose(): void }> {
  const pdfjs = await loadPdfjs();
  return workerOnThisThread(pdfjs, workerModule!);
}

function workerOnThisThread(
  pdfjs: Pdfjs,
  module: PdfjsWorkerModule,
): { worker: InstanceType<Pdfjs['PDFWorker']>; dispose(): void } {
  const port = new CopyingLoopbackPort();
  (module.WorkerMessageHandler as unknown as { initializeFromPort(port: unknown): void }).initializeFromPort(port);
  const worker = new pdfjs.PDFWorker({ port: port as never, verbosity: pdfjs.VerbosityLevel.ERRORS });
  return {
    worker,
    dispose() {
      worker.destroy();
      port.terminate();
    },
  };
}

type Listener = (this: unknown, event: { data: unknown }) => void;

/** pdfjs's LoopbackPort with {@link copyMessage} in place of `structuredClone`. */
class CopyingLoopbackPort {
  private readonly listeners = new Map<Listener, (() => void) | null>();
  private readonly deferred = Promise.resolve();

  postMessage(message: unknown, transfer?: ArrayBuffer[]): void {
    const event = { data: copyMessage(message, transfer) };
    void this.deferred.then(() => {
      for (const [listener] of this.listeners) listener.call(this, event);
    });
  }

  addEventListener(_name: string, listener: Listener, options: { signal?: AbortSignal } | null = null): void {
    let removeAbort: (() => void) | null = null;
    const signal = options?.signal;
    if (signal) {
      if (signal.aborted) return;
      const onAbort = () => this.removeEventListener(_name, listener);
      removeAbort = () => signal.removeEventListener('abort', onAbort);
      signal.addEventListener('abort', onAbort);
    }
    this.listeners.set(listener, removeAbort);
  }

  removeEventListener(_name: string, listener: Listener): void {
    this.listeners.get(listener)?.();
    this.listeners.delete(listener);
  }

  terminate(): void {
    for (const [, removeAbort] of this.listeners) removeAbort?.();
    this.listeners.clear();
  }
}

const MAX_DEPTH = 64;
class NotPlain extends Error {}

/** A deep copy with structured-clone semantics for plain data; falls back to `structuredClone` for the rest. */
export function copyMessage(message: unknown, transfer?: ArrayBuffer[]): unknown {
  const transferred = new Set<unknown>(transfer ?? []);
  try {
    return copy(message, transferred, 0);
  } catch (error) {
    if (!(error instanceof NotPlain)) throw error;
    return structuredClone(message, transfer ? { transfer } : undefined);
  }
}

function copy(value: unknown, transferred: Set<unknown>, depth: number): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function' || typeof value === 'symbol') throw new NotPlain();
    return value;
  }
  if (depth > MAX_DEPTH) throw new NotPlain();
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], transferred, depth + 1);
    return out;
  }
  if (ArrayBuffer.isView(value)) {
    if (transferred.has(value.buffer)) return value;
    if (value instanceof DataView) throw new NotPlain();
    return (value as unknown as { slice(): unknown }).slice();
  }
  if (value instanceof ArrayBuffer) return transferred.has(value) ? value : value.slice(0);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new NotPlain();
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    out[key] = copy((value as Record<string, unknown>)[key], transferred, depth + 1);
  return out;
}
