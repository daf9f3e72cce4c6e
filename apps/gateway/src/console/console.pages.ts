import type { AuditRecord } from '../operators/audit.repository';
import type { Operator } from '../operators/operators';
import type { Overview } from '../overview/overview.service';
import { en } from './console.strings';

const t = en;

/** Text into HTML: every value a page shows passes through here. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export type Page = 'overview' | 'audit';

export interface Frame {
  nonce: string;
  operator?: Operator;
  csrfToken?: string;
  current?: Page;
  title: string;
}

function nav(frame: Frame): string {
  if (!frame.operator) return '';
  const link = (page: Page, href: string, label: string) =>
    `<a href="${href}"${frame.current === page ? ' aria-current="page"' : ''}>${esc(label)}</a>`;
  return `<nav aria-label="Console">
      ${link('overview', '/ops/console', t.nav.overview)}
      ${link('audit', '/ops/console/audit', t.nav.audit)}
    </nav>
    <div class="who">
      <span>${esc(t.nav.signedInAs)} <strong>${esc(frame.operator.name)}</strong> (${esc(frame.operator.role)})</span>
      <form class="inline" data-api="/ops/console/sign-out" data-next="/ops/console/sign-in?signed-out=1">
        <button type="submit" class="link">${esc(t.nav.signOut)}</button>
      </form>
    </div>`;
}

export function layout(frame: Frame, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${frame.csrfToken ? `<meta name="csrf-token" content="${esc(frame.csrfToken)}">` : ''}
<title>${esc(frame.title)} · ${esc(t.product)}</title>
<link rel="stylesheet" href="/ops/console/assets/console.css" nonce="${frame.nonce}">
</head>
<body data-msg-failed="${esc(t.errors.failed)}">
<header><span class="brand">${esc(t.product)}</span>${nav(frame)}</header>
<main>
${body}
</main>
<script src="/ops/console/assets/console.js" nonce="${frame.nonce}"></script>
</body>
</html>`;
}

export function signInPage(frame: Frame, signedOut: boolean): string {
  return layout(
    frame,
    `<div class="signin card">
  <h1>${esc(t.signIn.title)}</h1>
  ${signedOut ? `<p class="notice">${esc(t.signIn.signedOut)}</p>` : ''}
  <p class="lead">${esc(t.signIn.intro)}</p>
  <form data-api="/ops/console/sign-in" data-next="/ops/console">
    <div><label for="token">${esc(t.signIn.token)}</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required></div>
    <p role="alert" hidden></p>
    <button type="submit">${esc(t.signIn.submit)}</button>
  </form>
</div>`,
  );
}

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
      `<tr><td class="mono">${esc(d.topic)}</td><td class="num bad">${num(d.messages)}</td><td>${sparkline(d.last15m, `${d.topic}: ${t.overview.chartLabel}`)}</td></tr>`,
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
    ? `<div class="table-wrap"><table><thead><tr><th>${t.overview.status}</th><th class="num">${t.overview.count}</th><th>${o15}</th></tr></thead><tbody>
${o.transitionsPerMinute
  .map(
    (s) =>
      `<tr><td>${esc(s.status)}</td><td class="num">${num(s.count)}</td><td>${sparkline(s.last15m, `${s.status}: ${t.overview.chartLabel}`)}</td></tr>`,
  )
  .join('\n')}
</tbody></table></div>`
    : `<p class="muted">${esc(t.overview.noTransitions)}</p>`;
  return `<div class="grid">
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

function change(r: AuditRecord): string {
  if (r.before === null && r.after === null) return '';
  return `<details><summary>JSON</summary><pre>${esc(JSON.stringify({ before: r.before, after: r.after }, null, 1))}</pre></details>`;
}

/** What a person sees when a page's data could not be read: in English, with the trace id to quote. */
export function errorPage(frame: Frame, detail: string): string {
  return layout(
    frame,
    `<h1>${esc(t.errors.title)}</h1>
<p class="notice">${esc(detail)}</p>
<p><a href="">${esc(t.errors.retry)}</a></p>`,
  );
}

export function auditPage(frame: Frame, page: { items: AuditRecord[]; nextCursor: string | null }): string {
  const rows = page.items
    .map(
      (r) => `<tr>
<td class="mono nowrap">${esc(r.at.replace('T', ' ').slice(0, 19))}</td>
<td>${esc(r.operator.name)} <span class="muted">(${esc(r.operator.role)})</span></td>
<td class="mono nowrap">${esc(r.action)}</td>
<td>${esc(r.object.type)} <span class="mono">${esc(r.object.id ?? '')}</span></td>
<td>${esc(r.reason ?? '')}</td>
<td>${change(r)}</td>
</tr>`,
    )
    .join('\n');
  return layout(
    frame,
    `<h1>${esc(t.audit.title)}</h1>
<p class="lead">${esc(t.audit.intro)}</p>
<section class="card">
${
  page.items.length
    ? `<div class="table-wrap"><table><thead><tr><th>${t.audit.when}</th><th>${t.audit.who}</th><th>${t.audit.action}</th><th>${t.audit.object}</th><th>${t.audit.reason}</th><th>${t.audit.change}</th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(t.audit.empty)}</p>`
}
${page.nextCursor ? `<p><a href="/ops/console/audit?cursor=${esc(page.nextCursor)}">${esc(t.audit.older)}</a></p>` : ''}
</section>`,
  );
}
