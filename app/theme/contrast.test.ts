import { darkPalette, lightPalette, type Palette } from './colors';
import { contrastRatio, requiredRatio, THEME_PAIRS } from './contrast';

const schemes: Array<[string, Palette]> = [
  ['light', lightPalette],
  ['dark', darkPalette],
];

describe('theme contrast (WCAG AA: 4.5:1 text, 3:1 large text and graphics)', () => {
  it('computes WCAG ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#fff', '#fff')).toBeCloseTo(1, 5);
    // The example: white on the dark theme's old danger red.
    expect(contrastRatio('#ffffff', '#f87171')).toBeLessThan(3);
  });

  for (const [name, palette] of schemes) {
    describe(name, () => {
      for (const pair of THEME_PAIRS) {
        it(`${pair.fg} on ${pair.bg} (${pair.where})`, () => {
          const ratio = contrastRatio(palette[pair.fg], palette[pair.bg]);
          expect({ ratio: Number(ratio.toFixed(2)), enough: ratio >= requiredRatio(pair.kind) }).toEqual({
            ratio: Number(ratio.toFixed(2)),
            enough: true,
          });
        });
      }
    });
  }

  it('text on the danger colour is readable in both schemes', () => {
    for (const [, p] of schemes) expect(contrastRatio(p.onDanger, p.danger)).toBeGreaterThanOrEqual(4.5);
  });
});
