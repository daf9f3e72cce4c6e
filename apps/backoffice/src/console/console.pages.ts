import type { DeliveryDetailView, DeliveryPage, OrderPage, OrderView } from '@payments/contracts';
import { DeliveryStatuses, OrderStatuses, TransferStatuses } from '@payments/contracts';
import type { AuditRecord } from '../operators/audit.repository';
import { DeadLetterStatuses, type DeadLetterView } from '../dead-letters/dead-letter.repository';
import type { Operator } from '../operators/operators';
import type { Overview, TransferAttempt } from '../overview/overview.service';
import { servicesSection } from './console.health';
import { esc } from './console.html';
import { en } from './console.strings';

const t = en;

export { esc };

export type Page = 'overview' | 'need-action' | 'orders' | 'payouts' | 'p2p' | 'callbacks' | 'dead-letters' | 'audit';

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
      ${link('need-action', '/ops/console/need-action', t.nav.needAction)}
      ${link('orders', '/ops/console/orders', t.nav.orders)}
      ${link('payouts', '/ops/console/payouts', t.nav.payouts)}
      ${link('p2p', '/ops/console/p2p', t.nav.p2p)}
      ${link('callbacks', '/ops/console/callbacks', t.nav.callbacks)}
      ${link('dead-letters', '/ops/console/dead-letters', t.nav.deadLetters)}
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

export function auditPage(
  frame: Frame,
  page: { items: AuditRecord[]; nextCursor: string | null },
  filter: Record<string, string> = {},
): string {
  const field = (name: string, label: string) =>
    `<div><label for="f-${name}">${esc(label)}</label><input type="text" id="f-${name}" name="${name}" value="${esc(filter[name] ?? '')}"></div>`;
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
<form method="get" action="/ops/console/audit" class="card filters">
  ${field('action', t.audit.action)}${field('objectType', t.audit.objectType)}${field('objectId', t.audit.objectId)}${field('operatorId', t.audit.operatorId)}
  <div><button type="submit">${esc(t.audit.filter)}</button></div>
</form>
<section class="card">
${
  page.items.length
    ? `<div class="table-wrap"><table><thead><tr><th>${t.audit.when}</th><th>${t.audit.who}</th><th>${t.audit.action}</th><th>${t.audit.object}</th><th>${t.audit.reason}</th><th>${t.audit.change}</th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(t.audit.empty)}</p>`
}
${page.nextCursor ? `<p><a href="/ops/console/audit?${esc(new URLSearchParams({ ...filter, cursor: page.nextCursor }).toString())}">${esc(t.audit.older)}</a></p>` : ''}
</section>`,
  );
}

type Money = { amount: string; currency: string; tokenStandard?: string };
const money = (m: Money | undefined) =>
  m ? `${m.amount} ${m.currency}${m.tokenStandard ? ` (${m.tokenStandard})` : ''}` : '—';
const when = (iso: string) => iso.replace('T', ' ').slice(0, 19);

function needActionCard(o: OrderView, canAct: boolean): string {
  const n = o.needAction;
  const na = t.needAction;
  const reported = n && 'reported' in n ? n.reported : o.order.reportedCost;
  const events = o.data.payments.length
    ? `<ol class="events">${o.data.payments
        .map(
          (p) =>
            `<li><span class="mono">${esc(when(p.updatedAt))}</span> ${esc(p.provider)}: ${esc(p.status)}${p.amount ? ` ${esc(p.amount)} ${esc(p.currency ?? '')}` : ''}${p.statusDescription ? ` — ${esc(p.statusDescription)}` : ''}</li>`,
        )
        .join('')}</ol>`
    : `<p class="muted">${esc(na.noEvents)}</p>`;
  const action = (value: string, label: string, danger: boolean) => `
  <form data-api="/ops/v1/orders/${esc(o.id)}/resolve" class="resolve">
    <input type="hidden" name="action" value="${value}">
    <label for="reason-${esc(o.id)}-${value}">${esc(na.reason)}</label>
    <input type="text" id="reason-${esc(o.id)}-${value}" name="note" required maxlength="1024">
    <p role="alert" hidden></p>
    <button type="submit"${danger ? ' class="danger"' : ''}>${esc(label)}</button>
  </form>`;
  return `<article class="card order" data-order="${esc(o.id)}">
  <h2>${esc(n ? (na.rules[n.rule] ?? n.rule) : (o.statusDescription ?? o.status))}</h2>
  <dl>
    <dt>${esc(na.order)}</dt><dd class="mono">${esc(o.id)}</dd>
    <dt>${esc(na.merchantOrderId)}</dt><dd>${esc(o.order.merchantOrderId)}</dd>
    <dt>${esc(na.shop)}</dt><dd class="mono">${esc(o.shopId)}</dd>
    <dt>${esc(na.since)}</dt><dd>${esc(when(o.updatedAt))} UTC</dd>
    <dt>${esc(na.expected)}</dt><dd>${esc(money(n?.expected ?? o.order.cost))}</dd>
    <dt>${esc(na.reported)}</dt><dd class="bad">${esc(money(reported))}</dd>
    ${n ? `<dt>${esc(na.tolerance)}</dt><dd>${esc(na.toleranceValue(n.allowedRange.lowerPercent, n.allowedRange.upperPercent, n.allowedRange.lowerBound, n.allowedRange.upperBound))}</dd>` : ''}
    ${n ? `<dt>${esc(na.resolvedBy)}</dt><dd>${esc(n.resolution.description)}</dd>` : ''}
    ${n?.statusDescription ? `<dt>${esc(na.why)}</dt><dd>${esc(n.statusCode)} ${esc(n.statusDescription)}</dd>` : ''}
  </dl>
  <h3>${esc(na.events)}</h3>
  ${events}
  ${canAct ? `<div class="actions">${action('accept_reported_amount', na.accept, false)}${action('fail', na.fail, true)}</div>` : ''}
</article>`;
}

export function needActionFragment(page: OrderPage, canAct: boolean): string {
  if (!page.items.length) return `<p class="card muted">${esc(t.needAction.empty)}</p>`;
  return `<div class="orders">${page.items.map((o) => needActionCard(o, canAct)).join('\n')}</div>`;
}

export function needActionPage(frame: Frame, page: OrderPage, canAct: boolean): string {
  return layout(
    frame,
    `<h1>${esc(t.needAction.title)}</h1>
<p class="lead">${esc(t.needAction.intro)}</p>
${canAct ? '' : `<p class="notice">${esc(t.needAction.viewerOnly)}</p>`}
<div id="live" data-refresh="/ops/console/need-action/live" data-every="5000" aria-live="polite">
${needActionFragment(page, canAct)}
</div>`,
  );
}

const lastAnswer = (d: { lastResponseStatus: number | null; lastError: string | null }) =>
  d.lastResponseStatus !== null ? `HTTP ${d.lastResponseStatus}` : (d.lastError ?? '—');

export function callbacksPage(
  frame: Frame,
  page: DeliveryPage,
  filter: { shopId?: string; status?: string },
  canAct: boolean,
): string {
  const c = t.callbacks;
  const qs = (extra: Record<string, string>) =>
    new URLSearchParams({
      ...(filter.shopId ? { shopId: filter.shopId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...extra,
    }).toString();
  const rows = page.items
    .map(
      (d) => `<tr data-delivery="${esc(d.id)}" data-object="${esc(d.objectId)}" data-status="${esc(d.status)}">
<td class="mono nowrap">${esc(when(d.createdAt))}</td>
<td>${esc(d.objectType)} <a class="mono" href="/ops/console/callbacks/${esc(d.id)}">${esc(d.objectId)}</a></td>
<td class="mono">${esc(d.type)}</td>
<td class="${d.status === 'failed' ? 'bad' : ''}">${esc(d.status)}</td>
<td class="num">${d.attempts}</td>
<td>${esc(lastAnswer(d))}</td>
<td>${
        canAct
          ? `<form data-api="/ops/v1/callbacks/${esc(d.id)}/replay" class="inline"><p role="alert" hidden></p><button type="submit" class="small">${esc(c.replay)}</button></form>`
          : ''
      }</td>
</tr>`,
    )
    .join('\n');
  const options = DeliveryStatuses.map(
    (s) => `<option value="${s}"${filter.status === s ? ' selected' : ''}>${s}</option>`,
  ).join('');
  return layout(
    frame,
    `<h1>${esc(c.title)}</h1>
<p class="lead">${esc(c.intro)}</p>
<form method="get" action="/ops/console/callbacks" class="card filters">
  <div><label for="shopId">${esc(c.shopId)}</label><input type="text" id="shopId" name="shopId" value="${esc(filter.shopId ?? '')}" pattern="[0-9a-fA-F-]{36}"></div>
  <div><label for="status">${esc(c.status)}</label><select id="status" name="status"><option value="">${esc(c.any)}</option>${options}</select></div>
  <div><button type="submit">${esc(c.filter)}</button></div>
</form>
${
  canAct && filter.shopId
    ? `<form data-api="/ops/v1/callbacks/replay" class="card replay-all">
  <input type="hidden" name="shopId" value="${esc(filter.shopId)}"><input type="hidden" name="status" value="failed">
  <p role="alert" hidden></p><button type="submit">${esc(c.replayAll)}</button>
</form>`
    : ''
}
<section class="card">
${
  page.items.length
    ? `<div class="table-wrap"><table><thead><tr><th>${c.when}</th><th>${c.object}</th><th>${c.event}</th><th>${c.result}</th><th class="num">${c.attempts}</th><th>${c.lastAnswer}</th><th></th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(c.empty)}</p>`
}
${page.nextCursor ? `<p><a href="/ops/console/callbacks?${esc(qs({ cursor: page.nextCursor }))}">${esc(c.older)}</a></p>` : ''}
</section>`,
  );
}

export function callbackPage(frame: Frame, d: DeliveryDetailView, canAct: boolean): string {
  const c = t.callbacks;
  return layout(
    frame,
    `<h1>${esc(c.title)}: ${esc(d.objectType)} <span class="mono">${esc(d.objectId)}</span></h1>
<p class="lead"><a href="/ops/console/callbacks?shopId=${esc(d.shopId)}">${esc(c.back)}</a></p>
<section class="card">
<dl>
  <dt>${esc(c.event)}</dt><dd class="mono">${esc(d.type)} (${esc(d.eventId)})</dd>
  <dt>${esc(c.result)}</dt><dd class="${d.status === 'failed' ? 'bad' : ''}">${esc(d.status)}</dd>
  <dt>${esc(c.url)}</dt><dd class="mono">${esc(d.url)}</dd>
</dl>
${
  canAct
    ? `<form data-api="/ops/v1/callbacks/${esc(d.id)}/replay" class="replay">
  <label for="reason">${esc(c.replayReason)}</label><input type="text" id="reason" name="reason" maxlength="500">
  <p role="alert" hidden></p><button type="submit">${esc(c.replay)}</button>
</form>`
    : ''
}
</section>
<section class="card"><h2>${esc(c.detail)}</h2>
<div class="table-wrap"><table><thead><tr><th class="num">${c.attempt}</th><th>${c.at}</th><th>${c.answer}</th><th class="num">${c.latency}</th></tr></thead><tbody>
${d.attemptLog
  .map(
    (a) =>
      `<tr><td class="num">${a.attempt}</td><td class="mono nowrap">${esc(when(a.at))}</td><td>${esc(a.responseStatus !== null ? `HTTP ${a.responseStatus}` : (a.error ?? ''))}</td><td class="num">${Math.round(a.latencyMs)} ms</td></tr>`,
  )
  .join('\n')}
</tbody></table></div></section>
<section class="card"><h2>${esc(c.body)}</h2><pre>${esc(JSON.stringify(d.body, null, 2))}</pre></section>`,
  );
}

export function ordersPage(
  frame: Frame,
  page: OrderPage,
  filter: { q?: string; shopId?: string; status?: string },
  notice?: string,
): string {
  const o = t.orders;
  const options = OrderStatuses.map(
    (s) => `<option value="${s}"${filter.status === s ? ' selected' : ''}>${s}</option>`,
  ).join('');
  const rows = page.items
    .map(
      (r) => `<tr data-order="${esc(r.id)}">
<td class="mono nowrap">${esc(when(r.createdAt))}</td>
<td><a class="mono" href="/ops/console/orders/${esc(r.id)}">${esc(r.id)}</a></td>
<td>${esc(r.order.merchantOrderId)}</td>
<td class="mono">${esc(r.shopId)}</td>
<td>${esc(r.status)}</td>
<td class="num">${esc(money(r.order.cost))}</td>
</tr>`,
    )
    .join('\n');
  return layout(
    frame,
    `<h1>${esc(o.title)}</h1>
<p class="lead">${esc(o.intro)}</p>
<form method="get" action="/ops/console/orders" class="card filters">
  <div><label for="q">${esc(o.query)}</label><input type="text" id="q" name="q" value="${esc(filter.q ?? '')}" maxlength="128"></div>
  <div><label for="shopId">${esc(o.shopId)}</label><input type="text" id="shopId" name="shopId" value="${esc(filter.shopId ?? '')}" maxlength="36"></div>
  <div><label for="status">${esc(o.status)}</label><select id="status" name="status"><option value="">${esc(o.any)}</option>${options}</select></div>
  <div><button type="submit">${esc(o.search)}</button></div>
</form>
${notice ? `<p class="notice">${esc(notice)}</p>` : ''}
<section class="card">
${
  page.items.length
    ? `<div class="table-wrap"><table><thead><tr><th>${o.created}</th><th>${o.order}</th><th>${o.merchantOrderId}</th><th>${o.shop}</th><th>${o.status}</th><th class="num">${o.amount}</th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(o.empty)}</p>`
}
${page.nextCursor ? `<p><a href="/ops/console/orders?${esc(new URLSearchParams({ ...(filter.shopId ? { shopId: filter.shopId } : {}), ...(filter.status ? { status: filter.status } : {}), cursor: page.nextCursor }).toString())}">${esc(o.older)}</a></p>` : ''}
</section>`,
  );
}

export interface StatusStep {
  at: string;
  from: string | null;
  to: string;
  deliveryId: string;
  delivery: string;
}

export function orderPage(frame: Frame, order: OrderView, history: StatusStep[], canAct: boolean): string {
  const o = t.orders;
  const n = order.needAction;
  return layout(
    frame,
    `<h1>${esc(o.order)} <span class="mono">${esc(order.id)}</span></h1>
<p class="lead"><a href="/ops/console/orders?shopId=${esc(order.shopId)}">${esc(o.shop)} ${esc(order.shopId)}</a></p>
<section class="card">
<dl>
  <dt>${esc(o.status)}</dt><dd><strong>${esc(order.status)}</strong> ${esc(order.statusCode ?? '')} ${esc(order.statusDescription ?? '')}</dd>
  <dt>${esc(o.merchantOrderId)}</dt><dd>${esc(order.order.merchantOrderId)}</dd>
  <dt>${esc(o.amount)}</dt><dd>${esc(money(order.order.cost))}${order.order.reportedCost ? ` (${esc(t.needAction.reported)}: ${esc(money(order.order.reportedCost))})` : ''}</dd>
  <dt>${esc(o.created)}</dt><dd>${esc(when(order.createdAt))} UTC</dd>
  <dt>${esc(o.updated)}</dt><dd>${esc(when(order.updatedAt))} UTC</dd>${linkRow(o.paymentLink, 'payer', order.data.paymentLinkStatus, order.data.expiresAt)}
</dl>
</section>
${order.status === 'need_action' ? needActionCard(order, canAct) : ''}
${n && order.status !== 'need_action' ? `<section class="card"><h2>${esc(o.needAction)}</h2><p>${esc(n.rule)}: ${esc(n.resolution.description)}</p></section>` : ''}
<section class="card"><h2>${esc(o.history)}</h2>
${
  history.length
    ? `<div class="table-wrap"><table><thead><tr><th>${o.at}</th><th>${o.from}</th><th>${o.to}</th><th>${o.delivery}</th></tr></thead><tbody>
${history
  .map(
    (h) =>
      `<tr><td class="mono nowrap">${esc(when(h.at))}</td><td>${esc(h.from ?? '—')}</td><td>${esc(h.to)}</td><td><a href="/ops/console/callbacks/${esc(h.deliveryId)}">${esc(h.delivery)}</a></td></tr>`,
  )
  .join('\n')}
</tbody></table></div>`
    : `<p class="muted">${esc(o.noHistory)}</p>`
}
</section>
<section class="card"><h2>${esc(o.attempts)}</h2>
${
  order.data.payments.length
    ? `<ol class="events">${order.data.payments
        .map(
          (p) =>
            `<li><span class="mono">${esc(when(p.createdAt))}</span> ${esc(p.provider)} <span class="mono">${esc(p.paymentId)}</span>: ${esc(p.status)}${p.amount ? ` ${esc(p.amount)} ${esc(p.currency ?? '')}` : ''}${p.statusDescription ? ` — ${esc(p.statusDescription)}` : ''}</li>`,
        )
        .join('')}</ol>`
    : `<p class="muted">${esc(o.noAttempts)}</p>`
}
${
  order.data.refunds?.length
    ? `<h3>${esc(o.refunds)}</h3><ul>${order.data.refunds.map((r) => `<li>${esc(when(r.createdAt))}: ${esc(r.amount)} ${esc(r.currency)}</li>`).join('')}</ul>`
    : ''
}
</section>`,
  );
}

export function deadLettersPage(
  frame: Frame,
  page: { items: DeadLetterView[]; nextCursor: string | null },
  topics: string[],
  filter: { topic?: string; status?: string },
  canAct: boolean,
): string {
  const d = t.deadLetters;
  const topicOptions = topics
    .map((x) => `<option value="${esc(x)}"${filter.topic === x ? ' selected' : ''}>${esc(x)}</option>`)
    .join('');
  const statusOptions = DeadLetterStatuses.map(
    (s) => `<option value="${s}"${filter.status === s ? ' selected' : ''}>${s}</option>`,
  ).join('');
  const rows = page.items
    .map((l) => {
      const open = l.status === 'open';
      const select =
        canAct && open && l.redrivable
          ? `<input type="checkbox" name="ids[]" value="${esc(l.id)}" form="redrive" aria-label="${esc(d.select)} ${esc(l.id)}">`
          : '';
      const discard =
        canAct && open
          ? `<form data-api="/ops/v1/dead-letters/${esc(l.id)}/discard" class="discard"><input type="text" name="reason" required maxlength="500" aria-label="${esc(d.discardReason)}" placeholder="${esc(d.discardReason)}"><p role="alert" hidden></p><button type="submit" class="small danger">${esc(d.discard)}</button></form>`
          : `<span class="muted">${esc(open ? '' : d.resolved(l.status, l.resolvedBy, l.reason))}</span>`;
      return `<tr data-dead-letter="${esc(l.id)}" data-status="${esc(l.status)}">
<td>${select}</td>
<td class="mono nowrap">${esc(when(l.deadLetteredAt))}</td>
<td class="mono"><span class="nowrap">${esc(l.originalTopic)}</span><br><span class="muted">${esc(l.consumerGroup ?? '')} · p${l.partition} @${esc(l.offset)}</span></td>
<td class="mono">${esc(l.type ?? d.notRedrivable)}<br><span class="muted">${esc(l.key ?? '')}</span></td>
<td>${esc(l.error)}</td>
<td class="num">${l.attempts}</td>
<td>${discard}</td>
</tr>`;
    })
    .join('\n');
  return layout(
    frame,
    `<h1>${esc(d.title)}</h1>
<p class="lead">${esc(d.intro)}</p>
<form method="get" action="/ops/console/dead-letters" class="card filters">
  <div><label for="topic">${esc(d.topic)}</label><select id="topic" name="topic"><option value="">${esc(d.any)}</option>${topicOptions}</select></div>
  <div><label for="status">${esc(d.status)}</label><select id="status" name="status"><option value="">${esc(d.any)}</option>${statusOptions}</select></div>
  <div><button type="submit">${esc(d.show)}</button></div>
</form>
${
  canAct
    ? `<form id="redrive" data-api="/ops/v1/dead-letters/redrive" class="card filters">
  <div><label for="redrive-reason">${esc(d.redriveReason)}</label><input type="text" id="redrive-reason" name="reason" maxlength="500"></div>
  <div><button type="submit">${esc(d.redrive)}</button></div>
  <p role="alert" hidden></p>
</form>`
    : ''
}
<section class="card">
${
  page.items.length
    ? `<div class="table-wrap"><table><thead><tr><th></th><th>${d.when}</th><th>${d.origin}</th><th>${d.message}</th><th>${d.error}</th><th class="num">${d.attempts}</th><th></th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(d.empty)}</p>`
}
${page.nextCursor ? `<p><a href="/ops/console/dead-letters?${esc(new URLSearchParams({ ...(filter.topic ? { topic: filter.topic } : {}), ...(filter.status ? { status: filter.status } : {}), cursor: page.nextCursor }).toString())}">${esc(d.older)}</a></p>` : ''}
</section>`,
  );
}

/** A payout or a P2P transaction as the list and the page need it (both views share these members). */
export interface TransferLike {
  id: string;
  shopId: string;
  status: string;
  statusCode?: string;
  statusDescription?: string;
  createdAt: string;
  updatedAt: string;
  payout?: { merchantPayoutId: string; cost: Money };
  p2p?: { merchantP2pId: string; cost: Money };
  data?: { payoutLinkStatus?: string; expiresAt?: string };
}

/** The row of a hosted page's link: where it is, never the link itself (it pays or pays out). */
function linkRow(
  label: string,
  who: 'payer' | 'recipient',
  status: string | undefined,
  expiresAt: string | undefined,
): string {
  if (!status) return '';
  return `\n  <dt>${esc(label)}</dt><dd data-link-status="${esc(status)}">${esc(t.orders.linkStatus(status, expiresAt ? when(expiresAt) : undefined, who))}</dd>`;
}

const transferMoney = (x: TransferLike) => money((x.payout ?? x.p2p)?.cost);
const transferMerchantId = (x: TransferLike) => x.payout?.merchantPayoutId ?? x.p2p?.merchantP2pId ?? '';

export function transfersPage(
  frame: Frame,
  kind: 'payouts' | 'p2p',
  page: { items: TransferLike[]; nextCursor: string | null },
  filter: { q?: string; shopId?: string; status?: string },
): string {
  const k = t.transfers[kind];
  const o = t.orders;
  const options = TransferStatuses.map(
    (s) => `<option value="${s}"${filter.status === s ? ' selected' : ''}>${s}</option>`,
  ).join('');
  const rows = page.items
    .map(
      (r) => `<tr data-transfer="${esc(r.id)}">
<td class="mono nowrap">${esc(when(r.createdAt))}</td>
<td><a class="mono" href="/ops/console/${kind}/${esc(r.id)}">${esc(r.id)}</a></td>
<td>${esc(transferMerchantId(r))}</td>
<td class="mono">${esc(r.shopId)}</td>
<td>${esc(r.status)}</td>
<td class="num">${esc(transferMoney(r))}</td>
</tr>`,
    )
    .join('\n');
  return layout(
    frame,
    `<h1>${esc(k.title)}</h1>
<p class="lead">${esc(t.transfers.intro)}</p>
<form method="get" action="/ops/console/${kind}" class="card filters">
  <div><label for="q">${esc(t.transfers.query)}</label><input type="text" id="q" name="q" value="${esc(filter.q ?? '')}" maxlength="128"></div>
  <div><label for="shopId">${esc(o.shopId)}</label><input type="text" id="shopId" name="shopId" value="${esc(filter.shopId ?? '')}" maxlength="36"></div>
  <div><label for="status">${esc(o.status)}</label><select id="status" name="status"><option value="">${esc(o.any)}</option>${options}</select></div>
  <div><button type="submit">${esc(o.search)}</button></div>
</form>
<section class="card">
${
  page.items.length
    ? `<div class="table-wrap"><table><thead><tr><th>${o.created}</th><th>${esc(k.one)}</th><th>${esc(k.merchantId)}</th><th>${o.shop}</th><th>${o.status}</th><th class="num">${o.amount}</th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(o.empty)}</p>`
}
${page.nextCursor ? `<p><a href="/ops/console/${kind}?${esc(new URLSearchParams({ ...(filter.shopId ? { shopId: filter.shopId } : {}), ...(filter.status ? { status: filter.status } : {}), cursor: page.nextCursor }).toString())}">${esc(o.older)}</a></p>` : ''}
</section>`,
  );
}

export function transferPage(
  frame: Frame,
  kind: 'payouts' | 'p2p',
  x: TransferLike,
  history: StatusStep[],
  attempts: TransferAttempt[],
): string {
  const k = t.transfers[kind];
  const o = t.orders;
  return layout(
    frame,
    `<h1>${esc(k.one)} <span class="mono">${esc(x.id)}</span></h1>
<p class="lead"><a href="/ops/console/${kind}?shopId=${esc(x.shopId)}">${esc(o.shop)} ${esc(x.shopId)}</a></p>
<section class="card">
<dl>
  <dt>${esc(o.status)}</dt><dd><strong>${esc(x.status)}</strong> ${esc(x.statusCode ?? '')} ${esc(x.statusDescription ?? '')}</dd>
  <dt>${esc(k.merchantId)}</dt><dd>${esc(transferMerchantId(x))}</dd>
  <dt>${esc(o.amount)}</dt><dd>${esc(transferMoney(x))}</dd>
  <dt>${esc(o.created)}</dt><dd>${esc(when(x.createdAt))} UTC</dd>
  <dt>${esc(o.updated)}</dt><dd>${esc(when(x.updatedAt))} UTC</dd>${linkRow(o.payoutLink, 'recipient', x.data?.payoutLinkStatus, x.data?.expiresAt)}
</dl>
</section>
<section class="card"><h2>${esc(o.history)}</h2>
${
  history.length
    ? `<div class="table-wrap"><table><thead><tr><th>${o.at}</th><th>${o.from}</th><th>${o.to}</th><th>${o.delivery}</th></tr></thead><tbody>
${history.map((h) => `<tr><td class="mono nowrap">${esc(when(h.at))}</td><td>${esc(h.from ?? '—')}</td><td>${esc(h.to)}</td><td><a href="/ops/console/callbacks/${esc(h.deliveryId)}">${esc(h.delivery)}</a></td></tr>`).join('\n')}
</tbody></table></div>`
    : `<p class="muted">${esc(o.noHistory)}</p>`
}
</section>
<section class="card"><h2>${esc(t.transfers.attempts)}</h2>
${
  attempts.length
    ? `<ol class="events">${attempts
        .map(
          (a) =>
            `<li data-attempt="${esc(a.dispatchId)}"><span class="mono">${esc(when(a.createdAt))}</span> ${esc(a.provider)} <span class="mono">${esc(a.providerPaymentId ?? a.dispatchId)}</span>: ${esc(a.status)} (${esc(t.transfers.sends)}: ${a.sends})${a.lastError ? ` — ${esc(a.lastError)}` : ''}</li>`,
        )
        .join('')}</ol>`
    : `<p class="muted">${esc(t.transfers.noAttempts)}</p>`
}
</section>
<section class="card"><h2>${esc(t.transfers.details)}</h2><pre>${esc(JSON.stringify(x, null, 2))}</pre></section>`,
  );
}
