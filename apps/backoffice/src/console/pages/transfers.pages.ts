import { TransferStatuses } from '@payments/contracts';
import type { TransferAttempt } from '../../overview/overview.service';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { Frame, layout, linkRow, money, Money, StatusStep, when } from './layout';

const t = en;

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
