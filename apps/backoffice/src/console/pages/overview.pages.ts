import type { Overview } from '../../overview/overview.service';
import { servicesSection } from '../console.health';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { Frame, layout } from './layout';

const t = en;

/** A small line chart of the last 15 minutes, as inline SVG (no script, no third-party asset). */
export function sparkline(values: number[], label: string): string {
  const w = 90;
  const h = 28;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const points = (values.length > 1 ? values : [values[0] ?? 0, values[0] ?? 0])
    .map((v, i) => `${(i * (step || w)).toFixed(1)},${(h - 2 - (v / max) * (h - 4)).toFixed(1)}`)
    .join(' ');
  return `<svg class="spark" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(label)}"><polyline points="${points}"/></svg>`;
}

function seconds(s: number): string {
  if (s < 1) return '0 s';
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

const num = (n: number) => n.toLocaleString('en-US');

/** The overview's live region: fetched again every 5 seconds by the page. */
export function overviewFragment(o: Overview): string {
  const o15 = t.overview.last15m;
  const groups = o.consumerGroups.length
    ? `<div class="table-wrap"><table><thead><tr><th>${t.overview.group}</th><th class="num">${t.overview.lag}</th><th class="num">${t.overview.lagSeconds}</th><th>${o15}</th></tr></thead><tbody>
${o.consumerGroups
  .map(
    (g) =>
      `<tr data-group="${esc(g.group)}"><td>${esc(g.group)}</td><td class="num${g.lag > 0 ? ' bad' : ''}" data-lag>${num(g.lag)}</td><td class="num">${seconds(g.lagSeconds)}</td><td>${sparkline(g.last15m, `${g.group}: ${t.overview.chartLabel}`)}</td></tr>`,
  )
  .join('\n')}
</tbody></table></div>`
    : `<p class="muted">${esc(o.kafkaCollector === 'another_instance' ? t.overview.collectorElsewhere : t.overview.none)}</p>`;
  const dlq = o.deadLetters.some((d) => d.messages > 0)
    ? `<div class="table-wrap"><table><thead><tr><th>${t.overview.topic}</th><th class="num">${t.overview.messages}</th><th>${o15}</th></tr></thead><tbody>
${o.deadLetters
  .filter((d) => d.messages > 0)
  .map(
    (d) =>
      `<tr><td class="mono nowrap">${esc(d.topic)}</td><td class="num bad">${num(d.messages)}</td><td>${sparkline(d.last15m, `${d.topic}: ${t.overview.chartLabel}`)}</td></tr>`,
  )
  .join('\n')}
</tbody></table></div>`
    : `<p class="muted">${esc(t.overview.noDeadLetters)}</p>`;
  const backlogs = `<div class="table-wrap"><table><thead><tr><th></th><th class="num">${t.overview.pending}</th><th class="num">${t.overview.oldest}</th><th>${o15}</th></tr></thead><tbody>
${o.outboxes
  .map(
    (b) =>
      `<tr><td>${esc(t.overview.outbox)} ${esc(b.schema)}</td><td class="num">${num(b.pending)}</td><td class="num">${b.pending ? seconds(b.oldestSeconds) : '—'}</td><td>${sparkline(b.last15m, `${b.schema}: ${t.overview.chartLabel}`)}</td></tr>`,
  )
  .join('\n')}
${
  o.merchantCallbacks
    ? `<tr><td>${esc(t.overview.merchantCallbacks)} <span class="muted">(${esc(t.overview.failed)}: ${num(o.merchantCallbacks.failed)})</span></td><td class="num">${num(o.merchantCallbacks.pending)}</td><td class="num">—</td><td>${sparkline(o.merchantCallbacks.last15m, `${t.overview.merchantCallbacks}: ${t.overview.chartLabel}`)}</td></tr>`
    : `<tr><td>${esc(t.overview.merchantCallbacks)}</td><td colspan="3" class="muted">${esc(t.overview.unavailable)}</td></tr>`
}
</tbody></table></div>`;
  const transitions = o.transitionsPerMinute.length
    ? `<div class="table-wrap"><table><thead><tr><th>${t.overview.objectType}</th><th>${t.overview.status}</th><th class="num">${t.overview.count}</th><th>${o15}</th></tr></thead><tbody>
${o.transitionsPerMinute
  .map(
    (s) =>
      `<tr data-transition="${esc(s.objectType)}:${esc(s.status)}"><td>${esc(t.overview.objectTypes[s.objectType])}</td><td>${esc(s.status)}</td><td class="num">${num(s.count)}</td><td>${sparkline(s.last15m, `${t.overview.objectTypes[s.objectType]} ${s.status}: ${t.overview.chartLabel}`)}</td></tr>`,
  )
  .join('\n')}
</tbody></table></div>`
    : `<p class="muted">${esc(t.overview.noTransitions)}</p>`;
  return `<section class="card services" aria-labelledby="h-services"><h2 id="h-services">${t.overview.services.title}</h2>${servicesSection(o.services)}</section>
<div class="grid">
<section class="card" aria-labelledby="h-groups"><h2 id="h-groups">${t.overview.consumerGroups}</h2>${groups}</section>
<section class="card" aria-labelledby="h-dlq"><h2 id="h-dlq">${t.overview.deadLetters}</h2>${dlq}</section>
<section class="card" aria-labelledby="h-backlogs"><h2 id="h-backlogs">${t.overview.backlogs}</h2>${backlogs}</section>
<section class="card" aria-labelledby="h-transitions"><h2 id="h-transitions">${t.overview.transitions}</h2>${transitions}</section>
</div>
<p class="muted">${esc(new Date(o.at).toISOString().replace('T', ' ').slice(0, 19))} UTC</p>`;
}

export function overviewPage(frame: Frame, o: Overview): string {
  return layout(
    frame,
    `<h1>${esc(t.overview.title)}</h1>
<p class="lead">${esc(t.overview.refreshed)}</p>
<div id="live" data-refresh="/ops/console/overview/live" data-every="5000" aria-live="polite">
${overviewFragment(o)}
</div>`,
  );
}
