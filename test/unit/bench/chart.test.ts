/**
 * The chart `npm run bench` draws (bench/chart.ts): which figures become bars, how each is scaled
 * against its target's line, and the SVG that shows them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chartBars, ratioChartSvg, writeRatioChart, type ChartBar } from '../../../bench/chart';
import { meets, TARGETS, type TargetLine } from '../../../bench/targets';

const ROOT = path.resolve(__dirname, '../../..');

describe('the bars of the bench chart', () => {
  const ratio: TargetLine = { bench: 'http', key: 'floor_p99_ratio', label: 'list p99 / floor', line: 1.25, bound: 'at most' };
  const atLeast: TargetLine = { bench: 'due', key: 'plans_to_ceiling_ratio', label: 'due / ceiling', line: 0.7, bound: 'at least' };
  const absolute: TargetLine = { bench: 'export', key: 'export_100k_seconds', label: 'export / 30 s', line: 30, bound: 'under', absolute: true };

  it('take each target figure a bench printed, a number or a number written as text', () => {
    const figures = new Map([
      ['http', { floor_p99_ratio: 1.03, other: 'x' }],
      ['export', { export_100k_seconds: '1.50' }],
    ]);
    expect(chartBars(figures, [ratio, absolute])).toEqual([
      { label: 'list p99 / floor', value: 1.03, line: 1.25, bound: 'at most', met: true },
      { label: 'export / 30 s', value: 0.05, line: 1, bound: 'under', met: true },
    ]);
  });

  it('leave out a target whose bench did not run or printed no number', () => {
    const figures = new Map<string, Record<string, unknown>>([
      ['http', { floor_p99_ratio: 'skipped' }],
      ['export', { export_100k_seconds: '' }],
    ]);
    expect(chartBars(figures, [ratio, atLeast, absolute])).toEqual([]);
  });

  it('judge each figure by its bound, the line itself included where the target allows it', () => {
    expect([meets(ratio, 1.25), meets(ratio, 1.26), meets(atLeast, 0.7), meets(atLeast, 0.69), meets(absolute, 29.9), meets(absolute, 30)]).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
  });

  it('name only keys the benches print', () => {
    const files: Record<string, string> = {
      http: 'http.ts',
      assets: 'assets.ts',
      webhooks: 'webhooks.ts',
      kill: 'worker-kill.ts',
      export: 'privacy-export.ts',
      due: 'plans-due.ts',
      maintenance: 'maintenance.ts',
    };
    const unprinted = Object.values(TARGETS).filter((t) => !fs.readFileSync(path.join(ROOT, 'bench', files[t.bench]!), 'utf8').includes(`${t.key}:`));
    expect(unprinted).toEqual([]);
  });
});

describe('the SVG of the bench chart', () => {
  const bars: ChartBar[] = [
    { label: 'list p99 / floor', value: 1.03, line: 1.25, bound: 'at most', met: true },
    { label: 'due <burst> & ceiling', value: 0.6, line: 0.7, bound: 'at least', met: false },
    { label: 'kill', value: 3.2, line: 1.5, bound: 'at most', met: false },
  ];
  const svg = ratioChartSvg(bars, 'npm run bench, 2026-11-29');
  const attrs = (element: string) => [...svg.matchAll(new RegExp(`<${element} class="[^"]*"[^>]*>`, 'g'))].map((m) => m[0]);
  const number = (tag: string, name: string) => Number(new RegExp(`${name}="([^"]+)"`).exec(tag)![1]);

  it('is one SVG document with the caption as its title', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('<title>npm run bench, 2026-11-29</title>');
  });

  it('draws a bar per figure, as long as its ratio on a scale that holds the largest, coloured by its verdict', () => {
    const rects = attrs('rect');
    expect(rects).toHaveLength(3);
    const widths = rects.map((r) => number(r, 'width'));
    // The scale runs to 3.5 (the next half above 3.2), 380 px wide.
    expect(widths[0]).toBeCloseTo((1.03 / 3.5) * 380, 0);
    expect(widths[1]).toBeCloseTo((0.6 / 3.5) * 380, 0);
    expect(widths[2]).toBeCloseTo((3.2 / 3.5) * 380, 0);
    expect(rects.map((r) => /fill="([^"]+)"/.exec(r)![1])).toEqual(['#2e7d32', '#c62828', '#c62828']);
  });

  it("marks each target's line on its bar's row", () => {
    const marks = attrs('line');
    expect(marks).toHaveLength(3);
    const left = 260;
    [1.25, 0.7, 1.5].forEach((line, i) => expect(number(marks[i]!, 'x1') - left).toBeCloseTo((line / 3.5) * 380, 0));
  });

  it('writes the figure beside each bar and escapes the text it is given', () => {
    expect(svg).toContain('1.03 ≤ 1.25');
    expect(svg).toContain('0.6 ≥ 0.7');
    expect(svg).toContain('3.2 ≤ 1.5');
    expect(svg).toContain('due &lt;burst&gt; &amp; ceiling');
    expect(svg).not.toContain('<burst>');
  });
});

describe('writing the bench chart', () => {
  it('writes the SVG where it is told, its folder made, and nothing when no target has a figure', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-chart-'));
    try {
      const file = path.join(dir, 'nested', 'ratios.svg');
      expect(await writeRatioChart(path.join(dir, 'none.svg'), new Map([['pii', { recall: 0.99 }]]), 'c')).toBe(false);
      expect(fs.existsSync(path.join(dir, 'none.svg'))).toBe(false);
      expect(await writeRatioChart(file, new Map([['kill', { kill_to_no_kill_ratio: 1.26 }]]), 'c')).toBe(true);
      expect(fs.readFileSync(file, 'utf8')).toContain('burst with a worker killed / without');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
