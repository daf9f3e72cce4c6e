import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { http } from '@payments/testing';

/** One series of a Prometheus text answer. */
export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The `/metrics` answer of a service: its text and its series. */
export async function scrape(baseUrl: string): Promise<{ text: string; contentType: string; series: Series[] }> {
  const res = await http('GET', `${baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET ${baseUrl}/metrics answered ${res.status}`);
  return { text: res.text, contentType: res.headers.get('content-type') ?? '', series: parseSeries(res.text) };
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSeries(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2];
    series.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return series;
}

/** The values of a family whose labels include `labels`. */
export function valuesOf(series: Series[], name: string, labels: Record<string, string> = {}): number[] {
  return series
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .map((s) => s.value);
}

/** The one value of a series, or undefined when it is not exported (yet). */
export function valueOf(series: Series[], name: string, labels: Record<string, string> = {}): number | undefined {
  const values = valuesOf(series, name, labels);
  if (values.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${values.length} series`);
  return values[0];
}

/**
 * The one finding of `promtool check metrics` that is on purpose: kafka_exporter's name, kept so
 * operators' existing panels read it unchanged (docs/decisions.md 89).
 */
export const ACCEPTED_LINT = [
  'kafka_consumergroup_lag_sum non-histogram and non-summary metrics should not have "_sum" suffix',
];

/** promtool check metrics over a /metrics answer: the findings left once the accepted one is taken out. */
export function lintMetrics(text: string): { parsed: boolean; findings: string[] } {
  const { status, output } = promtool(['check', 'metrics'], text);
  const findings = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !ACCEPTED_LINT.includes(l));
  // Exit 0: clean; 3: lint findings only; anything else: the text did not parse.
  return { parsed: status === 0 || status === 3, findings };
}

/**
 * Prometheus' own linter. `npm test` installs promtool (Debian's prometheus package) where it is
 * missing; a run without it fails here, saying so.
 */
export function promtool(args: string[], input?: string): { status: number | null; output: string } {
  // Where tools/infra/promtool.mjs unpacks it when the machine has none (a later direct jest run finds it too).
  const unpacked = path.join(__dirname, '..', '..', '.run', 'tools', 'prometheus', 'usr', 'bin', 'promtool');
  const r = spawnSync(existsSync(unpacked) ? unpacked : 'promtool', args, { input, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool could not run (${r.error.message}); npm test installs it`);
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
