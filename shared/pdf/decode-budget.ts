import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Ceilings on the work pdfjs does for one document, enforced where it decodes (./decode-bound.ts). Sizes are bytes
 * produced by decoders (after every filter of a stream's chain), charged before they are allocated.
 */
export interface DecodeLimits {
  /** One stream that is not an image: a content stream, form, font, CMap, object stream, a page's `/Contents`. */
  maxStreamBytes: number;
  /**
   * One image: its decoded data, or the size its own header announces (JPEG SOF, JPEG 2000 SIZ, JBIG2 page
   * information, CCITT columns × rows). An image stream may never decode past what its dictionary declares either.
   */
  maxImageBytes: number;
  /**
   * Streams other than images decoded between two {@link DecodeBudget.startPage} calls, re-decodes included: one
   * form drawn 10,000 times, one stream listed 2,000 times in `/Contents`.
   */
  maxPageBytes: number;
  /** Images decoded between two {@link DecodeBudget.startPage} calls (inline images are decoded each time drawn). */
  maxPageImageBytes: number;
  /** Everything decoded for the document: bounds the work, not the live memory. */
  maxTotalBytes: number;
  /** Entries one cross-reference stream may declare (pdfjs keeps a JavaScript object per entry). */
  maxXrefEntries: number;
  /** Objects (operands and operators) pdfjs may parse for one page: operator floods (pdfjs keeps ~85 B per operator). */
  maxPageObjects: number;
  /** Wall-clock time for opening the document, then for each page (from {@link DecodeBudget.startPage}). */
  pageTimeoutMs: number;
}

/**
 * The limits every PDF is read with. Measured with bench/pdf-bombs.ts (bench/history/2026-11-untrusted-input.md):
 * every adversarial file of test/support/pdf-bombs.ts is refused within about a second of CPU and 60 MB of memory;
 * ordinary files read the same.
 * - 16 MiB per stream: a dense page's content is well under 1 MB; 16 (not 32) keeps the JavaScript decoders (LZW,
 *   RunLength), which grow their buffer by doubling, under 50 MB of memory and half a second when refusing.
 * - 64 MiB per image: a colour A4 scan at 400 DPI is 46 MB decoded, grey at 600 DPI 35 MB.
 * - 64 MiB of streams and 192 MiB of images per page: amplification (one stream drawn or listed thousands of times)
 *   stops there, in about half a second (pdfjs lexes decoded content at ~100 MB/s).
 */
export const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  maxStreamBytes: 16 * 1024 * 1024,
  maxImageBytes: 64 * 1024 * 1024,
  maxPageBytes: 64 * 1024 * 1024,
  maxPageImageBytes: 192 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxXrefEntries: 1_000_000,
  maxPageObjects: 1_000_000,
  pageTimeoutMs: 15_000,
};

/** Which ceiling a document passed. */
export type DecodeLimitKind =
  | 'stream'
  | 'image'
  | 'page'
  | 'total'
  | 'xref'
  | 'objects'
  | 'time'
  | 'filter'
  | 'unbounded';

/** A decode refused by its budget; `message` is safe to show to the file's owner. */
export class DecodeLimitError extends Error {
  constructor(
    readonly kind: DecodeLimitKind,
    message: string,
  ) {
    super(message);
    this.name = 'DecodeLimitError';
  }
}

const MIB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round((bytes / MIB) * 10) / 10} MB`;

const current = new AsyncLocalStorage<DecodeBudget>();

/**
 * One document's allowance. Every pdfjs call for the document runs inside {@link DecodeBudget.run}: pdfjs's worker
 * code runs in the async context of the message that started it, so whatever pdfjs decodes for the document
 * (images it keeps decoding after `getOperatorList()` resolved included) is charged here.
 *
 * pdfjs catches some errors and carries on (a font that fails falls back to a standard one, a broken image is
 * skipped), so the first refusal is kept ({@link tripped}) and every later charge throws it again: callers check
 * {@link throwIfTripped} after each pdfjs call and refuse the whole document.
 */
export class DecodeBudget {
  readonly limits: DecodeLimits;
  /** Bytes decoded for the document so far (allocations, so re-decodes count again). */
  used = 0;
  /** The first refusal, kept even when pdfjs swallowed the exception. */
  tripped: DecodeLimitError | undefined;
  private pageUsed = 0;
  private pageImageUsed = 0;
  private pageObjects = 0;
  private deadline: number;
  /** Bytes decoded natively in this event-loop turn (see the native decode patch). */
  private nativeTurnBytes = 0;
  private nativeTurnScheduled = false;

  constructor(
    limits: Partial<DecodeLimits> = {},
    private readonly signal?: AbortSignal,
  ) {
    this.limits = { ...DEFAULT_DECODE_LIMITS, ...limits };
    this.deadline = performance.now() + this.limits.pageTimeoutMs;
  }

  /** Runs `fn` with this budget as the one every decode is charged to. */
  run<T>(fn: () => T): T {
    return current.run(this, fn);
  }

  throwIfTripped(): void {
    if (this.tripped) throw this.tripped;
  }

  /** Starts a page: its byte total, object count and deadline begin again. */
  startPage(): void {
    this.pageUsed = 0;
    this.pageImageUsed = 0;
    this.pageObjects = 0;
    this.deadline = performance.now() + this.limits.pageTimeoutMs;
  }

  /**
   * Called before `bytes` more are produced for a stream that then holds `streamTotal` (of at most `streamLimit`).
   * Throws {@link DecodeLimitError} past any ceiling, or the signal's reason once it aborted.
   */
  charge(bytes: number, streamTotal: number, streamLimit: number, image: boolean): void {
    this.check();
    if (streamTotal > streamLimit)
      this.trip(
        image ? 'image' : 'stream',
        image
          ? `The PDF holds an image that decodes to more than ${mb(streamLimit)}; it was not read.`
          : `The PDF holds a stream that decodes to more than ${mb(streamLimit)}; it was not read.`,
      );
    const pageLimit = image ? this.limits.maxPageImageBytes : this.limits.maxPageBytes;
    if ((image ? this.pageImageUsed : this.pageUsed) + bytes > pageLimit)
      this.trip(
        'page',
        `A page of the PDF decodes to more than ${mb(pageLimit)}${image ? ' of images' : ''}; it was not read.`,
      );
    if (this.used + bytes > this.limits.maxTotalBytes)
      this.trip('total', `The PDF decodes to more than ${mb(this.limits.maxTotalBytes)} in all; it was not read.`);
    this.chargeSlack(bytes, image);
  }

  /** Counts bytes allocated beyond a charge (a buffer rounded up to a power of two): they count, never refuse. */
  chargeSlack(bytes: number, image: boolean): void {
    this.used += bytes;
    if (image) this.pageImageUsed += bytes;
    else this.pageUsed += bytes;
  }

  /** Counts `objects` parsed for the page; checks the deadline and the signal. */
  tick(objects = 0): void {
    this.check();
    this.pageObjects += objects;
    if (this.pageObjects > this.limits.maxPageObjects)
      this.trip(
        'objects',
        `A page of the PDF holds more than ${this.limits.maxPageObjects.toLocaleString('en')} drawing objects; it was not read.`,
      );
  }

  /** Bytes that may still be decoded (of images, or of other streams) before the page or document total is passed. */
  remaining(image: boolean): number {
    const page = image ? this.limits.maxPageImageBytes - this.pageImageUsed : this.limits.maxPageBytes - this.pageUsed;
    return Math.max(0, Math.min(this.limits.maxTotalBytes - this.used, page));
  }

  /** Records the first refusal and throws it. */
  trip(kind: DecodeLimitKind, message: string): never {
    this.tripped ??= new DecodeLimitError(kind, message);
    throw this.tripped;
  }

  /**
   * Native decoding is synchronous (zlib with an output ceiling): at most one stream limit of it per event-loop
   * turn, after which pdfjs's JavaScript decoders take over (they decode a page's `/Contents` array one part at a
   * time, where the native path would start every part at once).
   */
  mayDecodeNatively(): boolean {
    return this.nativeTurnBytes < this.limits.maxStreamBytes;
  }

  countNative(bytes: number): void {
    this.nativeTurnBytes += bytes;
    if (this.nativeTurnScheduled) return;
    this.nativeTurnScheduled = true;
    setImmediate(() => {
      this.nativeTurnBytes = 0;
      this.nativeTurnScheduled = false;
    });
  }

  private check(): void {
    if (this.tripped) throw this.tripped;
    if (this.signal?.aborted) throw this.signal.reason;
    if (performance.now() > this.deadline)
      this.trip(
        'time',
        `Reading a page of the PDF took longer than ${this.limits.pageTimeoutMs / 1000} s; it was not read.`,
      );
  }
}

/** Decodes attempted outside any budget (always refused; a non-zero count means an async context was lost). */
export const orphanDecodes = { count: 0 };

/** The budget of the document being decoded; a decode outside any budget is refused, never left unbounded. */
export function currentBudget(): DecodeBudget {
  const budget = current.getStore();
  if (budget) return budget;
  orphanDecodes.count++;
  throw new DecodeLimitError('unbounded', 'A PDF stream was decoded outside a decode budget; it was refused.');
}

/** The current budget, if any (for checks that are not decodes). */
export function activeBudget(): DecodeBudget | undefined {
  return current.getStore();
}
