import type fc from 'fast-check';

/** One fuzzer: what test/support/fuzzers.ts holds for each parser of untrusted bytes. */
export interface Fuzzer<T = any, P = any> {
  name: string;
  inputs: fc.Arbitrary<T>;
  /** Builds the bytes the parser is given (a PDF, a raw mail); not counted in the parser's budget. */
  prepare(input: T): P | Promise<P>;
  /** Runs the parser on what {@link prepare} built; throws if its outcome is not an allowed one. */
  run(prepared: P, input: T): Promise<void>;
  /** A short description of an input, for reports. */
  describe(input: T): string;
  /** What one input may cost: CPU milliseconds, and memory growth (heap + array buffers) in MB. */
  budget: { ms: number; mb: number };
  /** Loads what the parser loads once per process (pdfjs and its decode bound), so no input pays for it. */
  warmUp?(): Promise<void>;
}
