import type { OrderPage, OrderView } from '@payments/contracts';
import { OrderStatuses } from '@payments/contracts';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { Frame, layout, linkRow, money, StatusStep, when } from './layout';

const t = en;

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

export function orderPage(frame: Frame, order: OrderView, history: StatusStep[], canAct: boolean): string {
  const o = t.orders;
  const n = order.needAction;
  return layout(
    frame,
    `<h1>${esc(o.order)} <span class="mono">${esc(order.id)}</span></h1>
<p class="lead"><a href="/ops/console/orders?shopId=${esc(order.shopId)}">${esc(o.shop)} ${esc(order.shopId)}</a> · <a href="/ops/console/shops/${esc(order.shopId)}/books">${esc(t.books.booksLink)}</a></p>
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
