import { randomBytes } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { assessScan } from '#shared/pdf/scan-quality.ts';
import { drawDotMatrixText } from '#test/support/dot-matrix.ts';
import { debianFonts, TEST_SANS, useTestFonts } from '#test/support/fonts.ts';
import { itNeeding, type Prerequisite } from '#test/support/prerequisites.ts';

// Text is drawn in fonts loaded from files, never in whatever `sans-serif` resolves to on this machine.
useTestFonts();
const DEBIAN_FONTS = debianFonts();
const dejavu: Prerequisite = {
  present: DEBIAN_FONTS.length === 3,
  missing: `${3 - DEBIAN_FONTS.length} of the 3 DejaVu faces missing from /usr/share/fonts/truetype/dejavu; apt-get install fonts-dejavu-core`,
};

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

const SENTENCE = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.';

const lines =
  (color: string, px = 20, count = 30, family = TEST_SANS) =>
  (ctx: any) => {
    ctx.fillStyle = color;
    ctx.font = `${px}px "${family}"`;
    for (let i = 0; i < count; i++) ctx.fillText(SENTENCE, 40, 60 + i * 32);
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
        page((ctx) => {
          ctx.fillStyle = '#f4f4f4';
          ctx.fillRect(100, 100, 300, 300);
        }),
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

  // The files of fonts-dejavu-core, the only fonts a bare Debian has: skipped on a machine without them, failed in CI.
  itNeeding(dejavu, 'calls small print text in every face a bare Debian installs, from 7 px up', () => {
    for (const { family } of DEBIAN_FONTS)
      for (const px of [7, 8, 9, 10, 11, 12, 14]) {
        for (const color of ['#000', '#777'])
          expect(assessScan(page(lines(color, px, 30, family)), W, H).verdict, `${family} ${px}px ${color}`).toBe(
            'text',
          );
        expect(assessScan(page(lines('#000', px, 1, family)), W, H).verdict, `${family} ${px}px, one line`).toBe(
          'text',
        );
      }
  });

  it('calls small print text in a font loaded from a file, and dot-matrix print', () => {
    for (const px of [7, 8, 9, 10, 11, 12, 14])
      expect(assessScan(page(lines('#000', px)), W, H).verdict, `${TEST_SANS} ${px}px`).toBe('text');
    // Dots at least 2 px across, or less than a pixel apart: smaller, separate dots are specks at this resolution.
    for (const pitch of [1.5, 2, 3, 4, 5])
      for (const dot of [0.6, 0.9, 1.2]) {
        if (pitch * dot < 2 && pitch * (1 - dot) >= 1) continue;
        const data = page((ctx) => {
          for (let i = 0; i < 20; i++)
            drawDotMatrixText(ctx, 'INVOICE TOTAL 1,234.50', 40, 60 + i * pitch * 11, { pitch, dot });
        });
        expect(assessScan(data, W, H).verdict, `dot-matrix pitch ${pitch}, dot ${dot}`).toBe('text');
      }
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

  it('calls random dots noise when they are drawn bigger than a pixel (a scan rendered above its resolution)', () => {
    for (const grain of [1.5, 2, 3])
      for (const density of [0.05, 0.2, 0.5, 0.8]) {
        const small = createCanvas(Math.ceil(W / grain), Math.ceil(H / grain));
        const smallCtx = small.getContext('2d');
        smallCtx.fillStyle = '#ffffff';
        smallCtx.fillRect(0, 0, small.width, small.height);
        const dots = smallCtx.getImageData(0, 0, small.width, small.height);
        sprinkle(dots.data, density);
        smallCtx.putImageData(dots, 0, 0);
        const data = page((ctx) => ctx.drawImage(small, 0, 0, small.width * grain, small.height * grain));
        expect(assessScan(data, W, H).verdict, `grain ${grain}, density ${density}`).toBe('noise');
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
