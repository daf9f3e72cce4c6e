import type { AwaitingCreditList, AwaitingCreditView } from '@payments/contracts';
import { atScale } from '@payments/ledger-domain';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { when } from './layout';

const a = en.books.awaiting;

function statusCell(c: AwaitingCreditView): string {
  if (c.parked)
    return `<strong class="bad">${esc(a.parkedLabel)}</strong> <span class="muted nowrap">${esc(a.since(c.parkedAt ? when(c.parkedAt) : '—'))}</span><div class="why">${esc(c.parked)}</div>`;
  return esc(c.balanceCurrency ? a.waiting : a.noCurrency);
}

/** An admin's release of a parked credit (decision 344): a reason, sent to the /ops/v1 route. */
function releaseForm(c: AwaitingCreditView, i: number): string {
  return `<form class="discard" data-api="/ops/v1/awaiting-credits/${esc(c.creditId)}/release">
<input type="text" name="reason" required maxlength="500" aria-label="${esc(a.releaseReason)}" placeholder="${esc(a.releaseReason)}" id="release-${i}">
<button type="submit" class="small">${esc(a.release)}</button><p role="alert" hidden></p></form>`;
}

/**
 * The credits waiting in suspense for a rate (decisions 304, 344), oldest first: one shop's on its
 * books page, every shop's (with a link to each shop's books) on the Books page; an admin releases
 * a parked one from its row.
 */
export function awaitingSection(list: AwaitingCreditList, o: { isAdmin: boolean; everyShop: boolean }): string {
  const anyParked = list.items.some((c) => c.parked);
  const rows = list.items
    .map(
      (c, i) => `<tr data-credit="${esc(c.creditId)}" data-status="${esc(c.status)}">
${o.everyShop ? `<td class="nowrap" data-label="${esc(a.shop)}"><a class="mono" href="/ops/console/shops/${esc(c.shopId)}/books">${esc(c.shopId.slice(0, 8))}</a></td>` : ''}
<td class="nowrap" data-label="${esc(a.order)}"><a class="mono" href="/ops/console/orders/${esc(c.orderId)}">${esc(c.orderId.slice(0, 8))}</a></td>
<td class="mono nowrap" data-label="${esc(a.completed)}">${esc(when(c.createdAt))}</td>
<td class="num" data-label="${esc(a.amount)}">${esc(atScale(c.amount, c.orderCurrency))} ${esc(c.orderCurrency)}</td>
<td data-label="${esc(a.convertsTo)}">${c.balanceCurrency ? esc(c.balanceCurrency) : '—'}</td>
<td class="wide" data-label="${esc(a.status)}">${statusCell(c)}</td>
${o.isAdmin && anyParked ? `<td class="wide">${c.parked ? releaseForm(c, i) : ''}</td>` : ''}
</tr>`,
    )
    .join('\n');
  const table = `<p class="muted">${esc(a.count(list.items.length, list.total))}</p>
<div class="table-wrap"><table class="awaiting"><thead><tr>${o.everyShop ? `<th>${esc(a.shop)}</th>` : ''}<th>${esc(a.order)}</th><th>${esc(a.completed)}</th><th class="num">${esc(a.amount)}</th><th>${esc(a.convertsTo)}</th><th>${esc(a.status)}</th>${o.isAdmin && anyParked ? '<th></th>' : ''}</tr></thead><tbody>
${rows}
</tbody></table></div>
${anyParked && !o.isAdmin ? `<p class="notice">${esc(a.adminOnly)}</p>` : ''}`;
  return `<section class="card" id="awaiting"><h2>${esc(a.title)}</h2>
<p class="muted">${esc(a.intro)}</p>
${list.items.length ? table : `<p class="muted">${esc(a.none)}</p>`}
</section>`;
}
