// One colour per priority level on every page (a run's report, a comparison, a tune result):
// derived from the level's name alone, so ci-tools is the same colour wherever it is drawn. Two
// levels whose names land on one colour are told apart by dashes (on a page, in name order).

import { createPrng } from '../../engine/random.ts';
import { esc, nameCell } from './format.ts';

/** Colours far apart in hue and lightness (Okabe-Ito, then Tableau's), readable on white. */
export const LEVEL_PALETTE = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#d55e00',
  '#cc79a7',
  '#56b4e9',
  '#000000',
  '#b8a400',
  '#8c564b',
  '#7f7f7f',
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#af7aa1',
  '#9c755f',
  '#ff9da7',
];

const DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
  [8, 2, 2, 2],
  [1, 3],
  [10, 4],
];

export function levelColour(level: string): string {
  return LEVEL_PALETTE[createPrng(`level-colour:${level}`).int(LEVEL_PALETTE.length)]!;
}

/** Vega-lite colour and dash encodings for `levels` (the field is `level`). */
export function levelEncoding(levels: readonly string[]): Record<string, unknown> {
  const domain = [...levels].sort();
  const seen = new Map<string, number>();
  const dashes = domain.map((level) => {
    const colour = levelColour(level);
    const n = seen.get(colour) ?? 0;
    seen.set(colour, n + 1);
    return DASHES[n % DASHES.length];
  });
  return {
    color: { field: 'level', type: 'nominal', title: 'priority level', scale: { domain, range: domain.map(levelColour) } },
    strokeDash: { field: 'level', type: 'nominal', title: 'priority level', scale: { domain, range: dashes } },
  };
}

/** A level's name in a table cell with its colour as a small square before it. */
export function levelSwatch(level: string): string {
  return `<span class="swatch" style="background:${esc(levelColour(level))}" aria-hidden="true"></span>`;
}

/** A table cell's level name, after its colour. */
export function levelCell(level: string): string {
  return level === '' ? '' : `${levelSwatch(level)}${nameCell(level)}`;
}
