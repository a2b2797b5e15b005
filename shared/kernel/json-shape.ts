/**
 * Ceilings on the shape of a JSON text, checked before it is parsed (untrusted JSON decoded under
 * ceilings on bytes, time and memory). Bytes are bounded by each caller (10 MB request bodies, 1 MB provider answers);
 * what bytes alone do not bound is nesting: 10 MB of `[` took JSON.parse 5.8 s and 290 MB of heap, and a value nested
 * that deep makes every later recursive walk (JSON.stringify, structured clone, validation) throw "Maximum call stack
 * size exceeded". Ordinary bodies are a few levels deep and hold hundreds of objects.
 */
export interface JsonShapeLimits {
  /** Objects and arrays inside one another. Default 64 (.NET's System.Text.Json default). */
  maxDepth: number;
  /** Objects and arrays in all. Default 100,000 (each costs ~60 bytes of heap and ~0.5 µs to build). */
  maxContainers: number;
}

export const DEFAULT_JSON_SHAPE: JsonShapeLimits = { maxDepth: 64, maxContainers: 100_000 };

/** The JSON text passes a shape ceiling; `message` is safe to show to the sender. */
export class JsonShapeError extends Error {
  constructor(
    readonly limit: 'depth' | 'containers',
    message: string,
  ) {
    super(message);
    this.name = 'JsonShapeError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;

/**
 * Throws {@link JsonShapeError} when `text` nests deeper or holds more objects and arrays than `limits` allow. One
 * linear pass that skips strings (brackets inside them do not count) and stops at the first excess; text that is not
 * JSON is left for JSON.parse to refuse. The regex and `indexOf` jump over long strings and numbers at native speed
 * (0.5 ms for a 10 MB chat body; a character loop took 95).
 */
export function checkJsonShape(text: string, limits: JsonShapeLimits = DEFAULT_JSON_SHAPE): void {
  const structure = /["[\]{}]/g;
  let depth = 0;
  let containers = 0;
  for (let match = structure.exec(text); match !== null; match = structure.exec(text)) {
    const c = text.charCodeAt(match.index);
    if (c === QUOTE) {
      const end = closingQuote(text, match.index);
      if (end < 0) return;
      structure.lastIndex = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limits.maxDepth)
        throw new JsonShapeError('depth', `The JSON nests objects and arrays deeper than ${limits.maxDepth} levels.`);
      if (++containers > limits.maxContainers)
        throw new JsonShapeError(
          'containers',
          `The JSON holds more than ${limits.maxContainers.toLocaleString('en')} objects and arrays.`,
        );
    } else depth--;
  }
}

/** Index of the quote closing the string opened at `open` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/** JSON.parse after {@link checkJsonShape}: throws {@link JsonShapeError}, or JSON.parse's SyntaxError. */
export function parseBoundedJson(text: string, limits: JsonShapeLimits = DEFAULT_JSON_SHAPE): unknown {
  checkJsonShape(text, limits);
  return JSON.parse(text);
}
