import { randomBytes } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { assessScan } from '#shared/pdf/scan-quality.ts';

const W = 850;
const H = 1100;

function page(draw: (ctx: ReturnType<ReturnType<typeof createCanvas>['getContext']>) => void, background = '#ffffff') {
  const canvas = createCanvas(W, H);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, W, H);
  draw(ctx);
  return ctx.getImageData(0, 0, W, H).data;
}

const lines =
  (color: string, px = 20, count = 30) =>
  (ctx: any) => {
    ctx.fillStyle = color;
    ctx.font = `${px}px sans-serif`;
    for (let i = 0; i < count; i++)
      ctx.fillText('Lorem ipsum dolor sit amet, consectetur adipiscing elit.', 40, 60 + i * 32);
  };

function sprinkle(data: Uint8ClampedArray, density: number) {
  const random = randomBytes(data.length / 4);
  const cut = Math.round(density * 65536);
  for (let i = 0; i < random.length - 1; i++) {
    if (((random[i]! << 8) | random[i + 1]!) < cut) data[i * 4] = data[i * 4 + 1] = data[i * 4 + 2] = 0;
  }
  return data;
}

describe('assessScan', () => {
  it('calls a white page, or a faint smudge, blank', () => {
    expect(
      assessScan(
        page(() => {}),
        W,
        H,
      ).verdict,
    ).toBe('blank');
    expect(
      assessScan(
        page((ctx) => ((ctx.fillStyle = '#f4f4f4'), ctx.fillRect(100, 100, 300, 300))),
        W,
        H,
      ).verdict,
    ).toBe('blank');
  });

  it('calls pages of text text: dark on light, pale grey, small, a single line, light on dark', () => {
    expect(assessScan(page(lines('#000')), W, H).verdict).toBe('text');
    expect(assessScan(page(lines('#999')), W, H).verdict).toBe('text');
    expect(assessScan(page(lines('#000', 11)), W, H).verdict).toBe('text');
    expect(assessScan(page(lines('#000', 20, 1)), W, H).verdict).toBe('text');
    expect(assessScan(page(lines('#fff'), '#000000'), W, H).verdict).toBe('text');
  });

  it('calls random dots noise at any density', () => {
    for (const density of [0.03, 0.1, 0.3, 0.5]) {
      expect(
        assessScan(
          sprinkle(
            page(() => {}),
            density,
          ),
          W,
          H,
        ).verdict,
        `density ${density}`,
      ).toBe('noise');
    }
  });

  it('keeps text with light speckle as text and whitens the isolated specks', () => {
    const data = sprinkle(page(lines('#000')), 0.01);
    const result = assessScan(data, W, H);
    expect(result.verdict).toBe('text');
    expect(result.despeckled).toBeGreaterThan(W * H * 0.005);
    const again = assessScan(data, W, H);
    expect(again.despeckled).toBeLessThan(result.despeckled / 10);
  });
});
