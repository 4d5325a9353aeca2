// results.svg, built by hand: one panel per figure, a horizontal bar per contender showing its
// ratio to the floor, and a dashed line at 1× (the floor). Panels say which way is better,
// because throughput and latency ratios point in opposite directions.
import type { Figure, Summary } from './summary';

interface Panel {
  readonly title: string;
  readonly better: 'higher' | 'lower';
  readonly bars: { name: string; ratio: number }[];
}

const COLORS: Record<string, string> = {
  floor: '#9e9e9e',
  lockweave: '#d84315',
  'redlock-v4': '#1565c0',
  'sesamecare-redlock': '#2e7d32',
  'redis-semaphore': '#6a1b9a',
  'redlock-universal': '#00838f',
  'node-redisson': '#f9a825',
};

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panels(summary: Summary): Panel[] {
  const pick = (
    scenario: string,
    title: string,
    better: Panel['better'],
    metric: (row: Summary['scenarios'][number]['rows'][number]) => Figure | undefined,
  ): Panel | undefined => {
    const table = summary.scenarios.find((t) => t.id === scenario);
    if (!table) return undefined;
    return { title, better, bars: table.rows.map((row) => ({ name: row.id, ratio: metric(row)?.ratio ?? NaN })) };
  };
  return [
    pick('uncontended', 'Uncontended throughput', 'higher', (r) => r.throughput),
    pick('uncontended', 'Uncontended p50 latency', 'lower', (r) => r.p50Ms),
    pick('hot-key', 'Hot key throughput (1 process)', 'higher', (r) => r.throughput),
    pick('multi-process', 'Hot key throughput (processes)', 'higher', (r) => r.throughput),
    pick('succession', 'Succession p50', 'lower', (r) => r.successionP50Ms),
    pick('succession', 'Succession p99', 'lower', (r) => r.successionP99Ms),
  ].filter((panel): panel is Panel => panel !== undefined);
}

export function renderSvg(summary: Summary, subtitle: string): string {
  const list = panels(summary);
  const names = new Map(summary.contenders.map((c) => [c.id, c.name]));
  const columns = 2;
  const panelWidth = 430;
  const labelWidth = 170;
  const barHeight = 16;
  const gap = 6;
  const panelHeight = 48 + (barHeight + gap) * Math.max(1, ...list.map((p) => p.bars.length)) + 20;
  const top = 56;
  const width = columns * panelWidth + 20;
  const height = top + Math.ceil(list.length / columns) * panelHeight + 10;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(
    `<text x="10" y="22" font-size="16" font-weight="bold">lockweave bench: ratio to the floor (1× = hand-written SET NX / EVALSHA)</text>`,
  );
  parts.push(`<text x="10" y="42" fill="#555">${escapeXml(subtitle)}</text>`);
  list.forEach((panel, index) => {
    const x0 = 10 + (index % columns) * panelWidth;
    const y0 = top + Math.floor(index / columns) * panelHeight;
    const plotWidth = panelWidth - labelWidth - 60;
    const finite = panel.bars.map((b) => b.ratio).filter(Number.isFinite);
    const max = Math.max(1.2, ...finite) * 1.05;
    const scale = (ratio: number) => (Math.max(0, ratio) / max) * plotWidth;
    parts.push(`<text x="${x0}" y="${y0 + 16}" font-weight="bold">${escapeXml(panel.title)}</text>`);
    parts.push(`<text x="${x0}" y="${y0 + 32}" fill="#555">${panel.better} is better</text>`);
    panel.bars.forEach((bar, i) => {
      const y = y0 + 42 + i * (barHeight + gap);
      const w = Number.isFinite(bar.ratio) ? scale(bar.ratio) : 0;
      parts.push(
        `<text x="${x0 + labelWidth - 6}" y="${y + barHeight - 4}" text-anchor="end">${escapeXml(names.get(bar.name) ?? bar.name)}</text>`,
      );
      parts.push(
        `<rect x="${x0 + labelWidth}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" fill="${COLORS[bar.name] ?? '#607d8b'}"/>`,
      );
      const label = Number.isFinite(bar.ratio) ? `${bar.ratio.toFixed(2)}×` : 'n/a';
      parts.push(`<text x="${(x0 + labelWidth + w + 4).toFixed(1)}" y="${y + barHeight - 4}">${label}</text>`);
    });
    const oneX = x0 + labelWidth + scale(1);
    const yEnd = y0 + 42 + panel.bars.length * (barHeight + gap) - gap;
    parts.push(
      `<line x1="${oneX.toFixed(1)}" y1="${y0 + 38}" x2="${oneX.toFixed(1)}" y2="${yEnd + 4}" stroke="#000" stroke-dasharray="4 3"/>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
