import { SegmentFormatError } from './segment-format.ts';

/** Reads `[start, end)` of one stored object. */
export type RangeRead = (start: number, end: number) => Promise<Uint8Array>;

/** Bytes per sequential read while a merge or a check walks a segment. */
const WINDOW_BYTES = 4 * 1024 * 1024;

/** Walks `[start, end)` of an object front to back, a window at a time. */
export class SequentialReader {
  private window = new Uint8Array(0);
  private windowAt: number;
  private at: number;

  constructor(
    private readonly read: RangeRead,
    start: number,
    private readonly end: number,
    private readonly windowBytes = WINDOW_BYTES,
  ) {
    this.at = start;
    this.windowAt = start;
  }

  async take(n: number): Promise<Uint8Array> {
    if (this.at + n > this.end) throw new SegmentFormatError('knowledge segment region is short');
    const offset = this.at - this.windowAt;
    if (offset + n <= this.window.length) {
      this.at += n;
      return this.window.subarray(offset, offset + n);
    }
    const kept = this.window.subarray(offset);
    const fetchTo = Math.min(this.end, this.at + Math.max(n, this.windowBytes));
    const fetched = await this.read(this.windowAt + this.window.length, fetchTo);
    const joined = new Uint8Array(kept.length + fetched.length);
    joined.set(kept);
    joined.set(fetched, kept.length);
    if (joined.length < n) throw new SegmentFormatError('knowledge segment region is short');
    this.window = joined;
    this.windowAt = this.at;
    this.at += n;
    return joined.subarray(0, n);
  }
}
