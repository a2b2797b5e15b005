import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { findDotPitch, prepareForOcr } from '#shared/pdf/prepare.ts';
import { drawDotMatrixText } from '#test/support/dot-matrix.ts';
import { debianFonts, TEST_SANS, useTestFonts } from '#test/support/fonts.ts';

useTestFonts();
const FACES = [TEST_SANS, ...debianFonts().map((f) => f.family)];
const W = 1200;
const H = 700;

function page(draw: (ctx: any) => void, background = '#ffffff') {
  const canvas = createCanvas(W, H);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, W, H);
  draw(ctx);
  return ctx.getImageData(0, 0, W, H).data;
}

/** The red channel of each pixel: a plain loop, as `Uint8Array.from` with a callback costs seconds over these pages. */
function grey(rgba: Uint8ClampedArray): Uint8Array {
  const out = new Uint8Array(W * H);
  for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4]!;
  return out;
}

/** Separate runs of ink down column `x` between rows `top` and `bottom`. */
function inkRuns(rgba: Uint8ClampedArray, x: number, top: number, bottom: number): number {
  let runs = 0;
  let inInk = false;
  for (let y = top; y <= bottom; y++) {
    const ink = rgba[(y * W + x) * 4]! < 128;
    if (ink && !inInk) runs++;
    inInk = ink;
  }
  return runs;
}

describe('prepareForOcr', () => {
  it('joins the dots of dot-matrix print into solid strokes, black on white', () => {
    const pitch = 4.5;
    // "I": its stem is the middle column of the glyph, seven dots from the top row to the baseline.
    const data = page((ctx) => drawDotMatrixText(ctx, 'IIII', 100, 300, { pitch, dot: 0.6 }));
    const stemX = Math.round(100 + 2 * pitch + pitch / 2);
    const [top, bottom] = [Math.round(300 - 7 * pitch), 300];
    expect(inkRuns(data, stemX, top, bottom)).toBe(7);

    const result = prepareForOcr(data, W, H);
    expect(result.dotPitch).toBeGreaterThanOrEqual(4);
    expect(result.dotPitch).toBeLessThanOrEqual(5);
    expect(inkRuns(data, stemX, top, bottom)).toBe(1);
    expect(new Set(Array.from(data.filter((_, i) => i % 4 !== 3)))).toEqual(new Set([0, 255]));
  });

  it('leaves ordinary print of any size or weight at the narrowest smoothing', () => {
    for (const family of FACES)
      for (const [weight, sizes] of [
        ['', [16, 19, 25, 31, 40, 56]],
        ['bold ', [16, 25, 40]],
      ] as const)
        for (const px of sizes) {
          const data = page((ctx) => {
            ctx.fillStyle = '#000';
            ctx.font = `${weight}${px}px "${family}"`;
            for (let i = 0; i < 8; i++)
              ctx.fillText('The board approved the budget: 1,234.50 minimum', 40, 60 + i * px * 1.5);
          });
          expect(findDotPitch(grey(data), W, H), `${family} ${weight}${px}px`).toBeUndefined();
          expect(prepareForOcr(data, W, H), `${family} ${weight}${px}px`).toEqual({ blurRadius: 1 });
        }
  }, 60_000);

  it('rounds bitmap faces of square pixels and of touching dots into strokes, sized to them', () => {
    const receipt = ['INVOICE TOTAL 1,234.50', 'QUICK BROWN FOX JUMPS OVER THE LAZY DOG', 'CASH PAYMENT RECEIVED'];
    const printed = (style: Parameters<typeof drawDotMatrixText>[4]) =>
      page((ctx) => {
        for (const [i, line] of receipt.entries()) drawDotMatrixText(ctx, line, 40, 80 + i * style.pitch * 12, style);
      });
    for (const pitch of [4.5, 5.5, 7]) {
      const squares = prepareForOcr(printed({ pitch, dot: 1, shape: 'square' }), W, H);
      expect(squares, `square pixels, pitch ${pitch}`).toMatchObject({
        face: 'square pixels',
        threshold: expect.any(Number),
      });
      expect(squares.strokeWidth).toBe(Math.round(pitch));
      expect(squares.blurRadius).toBe(Math.round(Math.round(pitch) / 2.5));
      const touching = prepareForOcr(printed({ pitch, dot: 0.9 }), W, H);
      expect(touching, `dots touching, pitch ${pitch}`).toMatchObject({ face: 'dots touching' });
      expect(touching.blurRadius).toBeGreaterThanOrEqual(2);
    }
    // Small faces keep the 1-pixel blur, which reads them as well as a wider one.
    for (const pitch of [2, 2.5, 3]) {
      expect(prepareForOcr(printed({ pitch, dot: 1, shape: 'square' }), W, H).blurRadius, `${pitch}`).toBe(1);
      expect(prepareForOcr(printed({ pitch, dot: 0.9 }), W, H).blurRadius, `${pitch}`).toBe(1);
    }
  });

  it('turns light print on a dark page into dark print on white', () => {
    const data = page((ctx) => {
      ctx.fillStyle = '#eeeeee';
      ctx.font = `30px "${TEST_SANS}"`;
      ctx.fillText('Light on dark', 40, 100);
    }, '#202020');
    prepareForOcr(data, W, H, false);
    let dark = 0;
    for (let i = 0; i < W * H; i++) if (data[i * 4]! < 128) dark++;
    expect(dark).toBeGreaterThan(500);
    expect(dark).toBeLessThan(W * H * 0.05);
  });
});
