import { isHexColour } from '../../integrations/index.js';

/** The accent when the session names none (a blue with white text at 5.3:1). */
export const defaultAccent = '#2b59c3';

type Rgb = [number, number, number];

function rgbOf(hex: string): Rgb {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as Rgb;
}

const hexOf = (rgb: Rgb) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

// WCAG 2 relative luminance and contrast ratio.
function luminance([r, g, b]: Rgb): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(rgbOf(a)), luminance(rgbOf(b))].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The colours the pages derive from one accent, each readable where it is used. */
export interface Palette {
  /** Button and brand tile background. */
  accent: string;
  /** Text on the accent: white or black, whichever contrasts more (always ≥ 4.58:1). */
  onAccent: string;
  /** The accent darkened until it reads on white (links, focus ring): ≥ 4.5:1. */
  ink: string;
}

export function paletteOf(candidate: string | null | undefined): Palette {
  const accent = (isHexColour(candidate) ? candidate : defaultAccent).toLowerCase();
  const onAccent = contrast(accent, '#ffffff') >= contrast(accent, '#000000') ? '#ffffff' : '#000000';
  let rgb = rgbOf(accent);
  // Mix toward black in small steps; black itself is 21:1, so this ends.
  while (contrast(hexOf(rgb), '#ffffff') < 4.5) rgb = rgb.map((v) => v * 0.9) as Rgb;
  return { accent, onAccent, ink: hexOf(rgb) };
}
