import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import '@payments/messaging'; // registers the kafka_* families of the elected collector
import { collectProcessMetrics, metricsRegistry } from '@payments/platform';
import { promtool } from '../support/metrics';

const MONITORING = path.join(__dirname, '..', '..', 'k8s', 'monitoring');
const RULES = path.join(MONITORING, 'payments-alerts.rules.yml');
const dashboard = JSON.parse(readFileSync(path.join(MONITORING, 'grafana', 'payments-dashboard.json'), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

collectProcessMetrics();
const families = metricsRegistry.getMetricsAsArray().map((m) => ({ name: m.name, type: String(m.type) }));
const ours = families.filter((f) => /^(payments|kafka)_/.test(f.name)).map((f) => f.name);

/** Metric names an expression reads (a histogram's _bucket, _sum and _count read its family). */
function namesIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:payments|kafka|http_server|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]);
}
function isExported(name: string): boolean {
  if (families.some((f) => f.name === name)) return true;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return families.some((f) => f.name === base && (f.type === 'histogram' || f.type === 'summary'));
}

describe('the monitoring shipped in k8s/monitoring', () => {
  it('when promtool checks the alert rules, then they pass', () => {
    const { status, output } = promtool(['check', 'rules', RULES]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it.each(ours)('when an operator opens the dashboard, then a panel charts %s', (name) => {
    const charting = dashboard.panels.filter((p) =>
      p.targets.some((t) => namesIn(t.expr).some((n) => n === name || n === `${name}_bucket`)),
    );
    expect(charting.map((p) => p.title)).not.toEqual([]);
  });

  it('when the dashboard and the rules name a metric, then a service exports it (no typo charts nothing)', () => {
    const exprs = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
      ...[...readFileSync(RULES, 'utf8').matchAll(/expr: *\|?\n?([\s\S]*?)\n *for:/g)].map((m) => m[1]),
    ];
    const named = [...new Set(exprs.flatMap(namesIn))];
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((n) => !isExported(n))).toEqual([]);
  });
});

describe('the services Prometheus scrapes', () => {
  const BASE = path.join(__dirname, '..', '..', 'k8s', 'base');
  /** Every Deployment of k8s/base annotated for scraping, with its port. */
  const scraped = readdirSync(BASE)
    .filter((f) => f.endsWith('.yaml') && !f.includes('template') && f !== 'kustomization.yaml')
    .flatMap(
      (f) =>
        loadAll(readFileSync(path.join(BASE, f), 'utf8')) as {
          kind: string;
          metadata: { name: string };
          spec: { template?: { metadata: { annotations?: Record<string, string> } } };
        }[],
    )
    .filter((m) => m.kind === 'Deployment')
    .map((d) => [d.metadata.name, d.spec.template!.metadata.annotations ?? {}] as const);
  const compose = readFileSync(path.join(MONITORING, 'compose', 'prometheus.yml'), 'utf8');

  it.each(scraped)(
    'when %s runs in k8s, then its pods are annotated for scraping at /metrics',
    (_name, annotations) => {
      expect(annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics' });
    },
  );

  it.each(scraped)(
    'when %s runs under docker compose, then the compose Prometheus scrapes it as the same job and port',
    (name, annotations) => {
      expect(compose).toContain(
        `- job_name: ${name}\n    static_configs: [{ targets: ['${name}:${annotations['prometheus.io/port']}'] }]`,
      );
    },
  );
});
