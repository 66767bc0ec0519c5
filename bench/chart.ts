/**
 * The chart `npm run bench` draws of its figures: one bar per target, the figure as a ratio to its
 * floor or ceiling (an absolute target as a share of its limit), the target's line marked on the
 * bar's row, green when met and red when not. A small SVG written here: no browser, no library.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TARGETS, meets, type TargetLine } from './targets';

export interface ChartBar {
  readonly label: string;
  /** The figure as a ratio: to the floor or ceiling, or to the limit of an absolute target. */
  readonly value: number;
  /** The target's line on the same scale (1 for an absolute target). */
  readonly line: number;
  readonly bound: TargetLine['bound'];
  readonly met: boolean;
}

/** The figures each bench answered, by bench name. */
export type BenchFigures = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

/** A bar for each target whose bench ran and printed a number under the target's key. */
export function chartBars(figures: BenchFigures, targets: readonly TargetLine[] = Object.values(TARGETS)): ChartBar[] {
  return targets.flatMap((target) => {
    const raw = figures.get(target.bench)?.[target.key];
    const figure = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isFinite(figure)) return [];
    const scale = target.absolute ? target.line : 1;
    return [{ label: target.label, value: figure / scale, line: target.line / scale, bound: target.bound, met: meets(target, figure) }];
  });
}

const WIDTH = 760;
const LABEL_RIGHT = 250;
const PLOT_LEFT = 260;
const PLOT_WIDTH = 380;
const TOP = 44;
const ROW = 26;
const BAR = 14;
const MET = '#2e7d32';
const NOT_MET = '#c62828';
const SIGN: Record<TargetLine['bound'], string> = { 'at most': '≤', 'at least': '≥', under: '<' };

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** A figure as the benches print it: at most three decimals, no trailing zeros. */
const figure = (n: number): string => String(Number(n.toFixed(3)));
const px = (n: number): string => n.toFixed(1);

/** The SVG of the bars, `caption` as its title. */
export function ratioChartSvg(bars: readonly ChartBar[], caption: string): string {
  // The scale runs to the next half above every value and line, at least 1.5.
  const max = Math.max(1.5, Math.ceil(Math.max(...bars.flatMap((b) => [b.value, b.line])) * 2) / 2);
  const x = (ratio: number): string => px(PLOT_LEFT + (Math.min(ratio, max) / max) * PLOT_WIDTH);
  const axisY = TOP + bars.length * ROW + 4;
  const height = axisY + 44;
  const ticks = Array.from({ length: Math.round(max * 2) + 1 }, (_, i) => i / 2);
  const lines = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(caption)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${PLOT_LEFT}" y="22" font-size="13" font-weight="bold">${escapeXml(caption)}</text>`,
    ...ticks.map((t) => `<line x1="${x(t)}" y1="${TOP - 6}" x2="${x(t)}" y2="${axisY}" stroke="#dddddd"/>`),
    ...ticks.map((t) => `<text x="${x(t)}" y="${axisY + 16}" text-anchor="middle" fill="#555555">${t}</text>`),
    ...bars.flatMap((bar, i) => {
      const y = TOP + i * ROW;
      return [
        `<text x="${LABEL_RIGHT}" y="${y + BAR - 2}" text-anchor="end">${escapeXml(bar.label)}</text>`,
        `<rect class="bar" x="${PLOT_LEFT}" y="${y}" width="${px((Math.min(bar.value, max) / max) * PLOT_WIDTH)}" height="${BAR}" fill="${bar.met ? MET : NOT_MET}"/>`,
        `<line class="target" x1="${x(bar.line)}" y1="${y - 4}" x2="${x(bar.line)}" y2="${y + BAR + 4}" stroke="#000000" stroke-width="2"/>`,
        `<text x="${PLOT_LEFT + PLOT_WIDTH + 10}" y="${y + BAR - 2}">${escapeXml(`${figure(bar.value)} ${SIGN[bar.bound]} ${figure(bar.line)}`)}</text>`,
      ];
    }),
    `<text x="${PLOT_LEFT}" y="${axisY + 34}" fill="#555555">ratio; black mark: the target's line; green: met, red: not met</text>`,
    '</svg>',
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes the chart of these figures to `file` (its folder made); false when no target has a figure. */
export async function writeRatioChart(file: string, figures: BenchFigures, caption: string): Promise<boolean> {
  const bars = chartBars(figures);
  if (bars.length === 0) return false;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, ratioChartSvg(bars, caption));
  return true;
}
