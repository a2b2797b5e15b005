/**
 * A dot-matrix face drawn dot by dot with the canvas, as a receipt or an old invoice printer prints it: uppercase,
 * digits and a little punctuation on a 5×7 grid, each dot a filled circle. No font file involved, so pages in this
 * face look the same on every machine.
 */

/** Rows top to bottom, each five columns left to right ('#' = a dot). */
const GLYPHS: Record<string, string[]> = {
  A: ['.###.', '#...#', '#...#', '#...#', '#####', '#...#', '#...#'],
  B: ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
  C: ['.###.', '#...#', '#....', '#....', '#....', '#...#', '.###.'],
  D: ['###..', '#..#.', '#...#', '#...#', '#...#', '#..#.', '###..'],
  E: ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
  F: ['#####', '#....', '#....', '####.', '#....', '#....', '#....'],
  G: ['.###.', '#...#', '#....', '#.###', '#...#', '#...#', '.####'],
  H: ['#...#', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  I: ['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  J: ['..###', '...#.', '...#.', '...#.', '...#.', '#..#.', '.##..'],
  K: ['#...#', '#..#.', '#.#..', '##...', '#.#..', '#..#.', '#...#'],
  L: ['#....', '#....', '#....', '#....', '#....', '#....', '#####'],
  M: ['#...#', '##.##', '#.#.#', '#.#.#', '#...#', '#...#', '#...#'],
  N: ['#...#', '#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#'],
  O: ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  P: ['####.', '#...#', '#...#', '####.', '#....', '#....', '#....'],
  Q: ['.###.', '#...#', '#...#', '#...#', '#.#.#', '#..#.', '.##.#'],
  R: ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
  S: ['.####', '#....', '#....', '.###.', '....#', '....#', '####.'],
  T: ['#####', '..#..', '..#..', '..#..', '..#..', '..#..', '..#..'],
  U: ['#...#', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  V: ['#...#', '#...#', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
  W: ['#...#', '#...#', '#...#', '#.#.#', '#.#.#', '#.#.#', '.#.#.'],
  X: ['#...#', '#...#', '.#.#.', '..#..', '.#.#.', '#...#', '#...#'],
  Y: ['#...#', '#...#', '#...#', '.#.#.', '..#..', '..#..', '..#..'],
  Z: ['#####', '....#', '...#.', '..#..', '.#...', '#....', '#####'],
  '0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  '2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  '3': ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
  '4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  '5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  '6': ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
  '7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  '8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  '9': ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
  '.': ['.....', '.....', '.....', '.....', '.....', '.##..', '.##..'],
  ',': ['.....', '.....', '.....', '.....', '.##..', '..#..', '.#...'],
  ':': ['.....', '.##..', '.##..', '.....', '.##..', '.##..', '.....'],
  '-': ['.....', '.....', '.....', '#####', '.....', '.....', '.....'],
  '/': ['.....', '....#', '...#.', '..#..', '.#...', '#....', '.....'],
  $: ['..#..', '.####', '#.#..', '.###.', '..#.#', '####.', '..#..'],
  '#': ['.#.#.', '.#.#.', '#####', '.#.#.', '#####', '.#.#.', '.#.#.'],
  '%': ['##...', '##..#', '...#.', '..#..', '.#...', '#..##', '...##'],
  ' ': ['.....', '.....', '.....', '.....', '.....', '.....', '.....'],
};

/** The characters the face can print. */
export const DOT_MATRIX_CHARACTERS = Object.keys(GLYPHS).join('');

export interface DotMatrixStyle {
  /** Distance between dot centres, in pixels: a capital is 6 pitches tall (7 dots). */
  pitch: number;
  /** Dot diameter as a share of the pitch: 1 makes neighbouring dots touch, less leaves gaps between them. */
  dot?: number;
  /** Fill colour of the dots. Default black. */
  color?: string;
  /**
   * `round` (default): each dot a filled circle, as a print head strikes it. `square`: each dot a filled square, as a
   * bitmap (pixel) face is drawn on screen or by a thermal printer; with `dot` 1 neighbouring squares join into
   * blocky strokes.
   */
  shape?: 'round' | 'square';
}

/** Minimal canvas surface used here (both @napi-rs/canvas and the DOM canvas have it). */
interface DrawingContext {
  fillStyle: unknown;
  beginPath(): void;
  arc(x: number, y: number, radius: number, start: number, end: number): void;
  fill(): void;
  fillRect(x: number, y: number, width: number, height: number): void;
}

/**
 * Prints `text` (uppercased; characters outside the face are left as gaps) with its baseline at `y`: the bottom row of
 * dots sits on it. Characters advance by 6 pitches (5 dots and a gap column). Returns the x after the last character.
 */
export function drawDotMatrixText(ctx: DrawingContext, text: string, x: number, y: number, style: DotMatrixStyle) {
  const { pitch } = style;
  const radius = (pitch * (style.dot ?? 0.9)) / 2;
  ctx.fillStyle = style.color ?? '#000';
  let left = x;
  for (const char of text.toUpperCase()) {
    const rows = GLYPHS[char] ?? GLYPHS[' ']!;
    rows.forEach((row, r) => {
      for (let c = 0; c < row.length; c++) {
        if (row[c] !== '#') continue;
        const cx = left + c * pitch + pitch / 2;
        const cy = y - (6 - r) * pitch - pitch / 2;
        if (style.shape === 'square') {
          ctx.fillRect(cx - radius, cy - radius, 2 * radius, 2 * radius);
          continue;
        }
        ctx.beginPath();
        ctx.arc(cx, cy, radius, 0, Math.PI * 2);
        ctx.fill();
      }
    });
    left += 6 * pitch;
  }
  return left;
}
