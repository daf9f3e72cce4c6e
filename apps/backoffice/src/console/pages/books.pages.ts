import type {
  AwaitingCreditList,
  BalanceView,
  FeeListView,
  RateListView,
  SettlementView,
  ShopTransactionPage,
} from '@payments/contracts';
import { atScale } from '@payments/ledger-domain';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { awaitingSection } from './books-awaiting.pages';
import { Frame, layout, when } from './layout';

const b = en.books;

/** A text field of a console form: its label above, its input below. */
function field(id: string, name: string, label: string, extra = ''): string {
  return `<div><label for="${id}">${esc(label)}</label><input type="text" id="${id}" name="${name}"${extra}></div>`;
}

/** The shop's pages of the books, one line of links under their title. */
function shopLinks(shopId: string, current: 'books' | 'fees'): string {
  const link = (page: 'books' | 'fees', label: string) =>
    page === current
      ? `<strong>${esc(label)}</strong>`
      : `<a href="/ops/console/shops/${esc(shopId)}/${page}">${esc(label)}</a>`;
  return `<p class="lead">${link('books', b.booksLink)} · ${link('fees', b.feesLink)} · <a href="/ops/console/orders?shopId=${esc(shopId)}">${esc(b.ordersLink)}</a></p>`;
}

/** An amount padded to its currency's scale (`105.20 USD`), escaped. */
const amount = (value: string, currency: string) => esc(atScale(value, currency));

/** The Books entry of the navigation: open a shop's books by its id, every shop's credits waiting for a rate, and the rates. */
export function booksPage(
  frame: Frame,
  rates: RateListView,
  awaiting: AwaitingCreditList,
  o: { canAct: boolean; isAdmin: boolean; notice?: string },
): string {
  const { canAct, notice } = o;
  const r = b.rates;
  const rows = rates.rates
    .map(
      (x) => `<tr data-rate="${esc(x.id)}">
<td class="nowrap">${esc(x.base)} → ${esc(x.quote)}</td>
<td class="num">${esc(x.rate)}</td>
<td class="mono nowrap">${esc(when(x.validFrom))}</td>
<td class="mono nowrap">${x.validTo ? esc(when(x.validTo)) : esc(r.open)}</td>
<td class="mono">${esc(x.source)}</td>
</tr>`,
    )
    .join('\n');
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return layout(
    frame,
    `<h1>${esc(b.title)}</h1>
<p class="lead">${esc(b.intro)}</p>
<form method="get" action="/ops/console/books" class="card filters">
  ${field('shopId', 'shopId', b.shopId, ' maxlength="36" required')}
  <div><button type="submit">${esc(b.open)}</button></div>
</form>
${notice ? `<p class="notice">${esc(notice)}</p>` : ''}
${awaitingSection(awaiting, { isAdmin: o.isAdmin, everyShop: true })}
<section class="card" id="rates"><h2>${esc(r.title)}</h2>
<p class="muted">${esc(r.intro)}</p>
${
  rates.rates.length
    ? `<div class="table-wrap"><table><thead><tr><th>${esc(r.pair)}</th><th class="num">${esc(r.rate)}</th><th>${esc(r.validFrom)}</th><th>${esc(r.validTo)}</th><th>${esc(r.source)}</th></tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(r.none)}</p>`
}
${
  canAct
    ? `<h3>${esc(r.add)}</h3>
<form data-api="/ops/v1/rates" class="settings" id="add-rate">
  ${field('rate-base', 'base', r.base, ' required maxlength="40" placeholder="USD"')}
  ${field('rate-quote', 'quote', r.quote, ' required maxlength="40" placeholder="USDT-TRC20"')}
  ${field('rate-value', 'rate', r.value, ' required maxlength="60" inputmode="decimal" placeholder="0.998"')}
  ${field('rate-from', 'validFrom', r.from, ` required maxlength="40" value="${esc(now)}"`)}
  ${field('rate-to', 'validTo', r.to, ' maxlength="40"')}
  ${field('rate-reason', 'reason', r.reason, ' required maxlength="500"')}
  <p role="alert" hidden></p>
  <div><button type="submit">${esc(r.submit)}</button></div>
</form>`
    : `<p class="notice">${esc(b.viewerOnly)}</p>`
}
</section>`,
  );
}

function balancesTable(balance: BalanceView): string {
  if (!balance.balances.length) return `<p class="muted">${esc(b.noBalances)}</p>`;
  return `<div class="table-wrap"><table class="balances"><thead><tr><th>${esc(b.currency)}</th><th class="num">${esc(b.available)}</th><th class="num">${esc(b.pending)}</th><th class="num">${esc(b.reserved)}</th><th class="num">${esc(b.owed)}</th></tr></thead><tbody>
${balance.balances
  .map(
    (x) =>
      `<tr data-currency="${esc(x.currency)}"><td><strong>${esc(x.currency)}</strong></td><td class="num" data-available data-label="${esc(b.available)}">${amount(x.available, x.currency)}</td><td class="num" data-label="${esc(b.pending)}">${amount(x.pending, x.currency)}</td><td class="num" data-label="${esc(b.reserved)}">${amount(x.reserved, x.currency)}</td><td class="num${Number(x.owed) > 0 ? ' bad' : ''}" data-owed data-label="${esc(b.owed)}">${amount(x.owed, x.currency)}</td></tr>`,
  )
  .join('\n')}
</tbody></table></div>
<p class="muted">${esc(b.owedHint)}</p>`;
}

function transactionRows(page: ShopTransactionPage): string {
  return page.items
    .map((t) => {
      const source =
        t.source.type === 'order'
          ? `<a class="mono" href="/ops/console/orders/${esc(t.source.id)}">${esc(t.source.id.slice(0, 8))}</a>`
          : t.source.type === 'payout'
            ? `<a class="mono" href="/ops/console/payouts/${esc(t.source.id)}">${esc(t.source.id.slice(0, 8))}</a>`
            : t.source.type === 'settlement' && t.credits
              ? // a settlement of a shop's due credits at once (decision 351): how many, not its own id again
                `<span data-credits="${t.credits}">${esc(b.settledCredits(t.credits))}</span>`
              : `<span class="mono">${esc(t.source.id.slice(0, 8))}</span>`;
      const note = t.adjustment
        ? `<div class="muted">${esc(b.adjustedBy(t.adjustment.operator.name, t.adjustment.reason))}</div>`
        : '';
      const moved = t.amount.startsWith('-') ? 'bad' : '';
      // A settlement that paid what the shop owed first (decision 348): the part that did, in `currency`.
      const repaid = t.repaid
        ? `<div class="muted" data-repaid>${esc(b.repaid(atScale(t.repaid, t.currency), t.currency))}</div>`
        : '';
      return `<tr data-transaction="${esc(t.id)}" data-kind="${esc(t.kind)}">
<td class="mono nowrap">${esc(when(t.createdAt))}</td>
<td>${esc(b.kinds[t.kind] ?? t.kind)}${t.status === 'awaiting_rate' ? ` <span class="muted">(${esc(b.awaitingRate)})</span>` : ''}${note}</td>
<td>${t.source.type === 'settlement' ? '' : `${esc(t.source.type)} `}${source}</td>
<td class="num">${amount(t.gross, t.operationCurrency)} ${esc(t.operationCurrency)}</td>
<td class="num">${amount(t.fee, t.operationCurrency)}</td>
<td class="num">${amount(t.net, t.operationCurrency)}</td>
<td class="num${moved ? ` ${moved}` : ''}">${amount(t.amount, t.currency)} ${esc(t.currency)}${repaid}</td>
<td class="num">${t.rate ? esc(t.rate.rate) : '—'}</td>
${t.availableOn ? `<td class="mono nowrap">${esc(when(t.availableOn))}</td>` : '<td>—</td>'}
</tr>`;
    })
    .join('\n');
}

/** A shop's balances, its ledger transactions (paged) and, for an admin, the manual adjustment form. */
export function shopBooksPage(
  frame: Frame,
  shopId: string,
  balance: BalanceView,
  page: ShopTransactionPage,
  awaiting: AwaitingCreditList,
  o: { isAdmin: boolean; idempotencyKey: string; paged: boolean },
): string {
  const a = b.adjust;
  const currencies = balance.balances.map((x) => x.currency);
  const form = o.isAdmin
    ? `<form data-api="/ops/v1/shops/${esc(shopId)}/adjustments" data-idempotency-key="${esc(o.idempotencyKey)}" class="settings" id="adjust">
  ${field('adjust-currency', 'currency', a.currency, ` required maxlength="40" list="shop-currencies" value="${esc(currencies[0] ?? '')}"`)}
  <datalist id="shop-currencies">${currencies.map((c) => `<option value="${esc(c)}"></option>`).join('')}</datalist>
  ${field('adjust-amount', 'amount', a.amount, ' required maxlength="60" inputmode="decimal" placeholder="25.00"')}
  ${field('adjust-reason', 'reason', a.reason, ' required maxlength="500"')}
  <p role="alert" hidden></p>
  <div><button type="submit">${esc(a.submit)}</button></div>
</form>`
    : `<p class="notice">${esc(a.adminOnly)}</p>`;
  return layout(
    frame,
    `<h1>${esc(b.shopTitle)} <span class="mono">${esc(shopId)}</span></h1>
${shopLinks(shopId, 'books')}
<section class="card" id="balances"><h2>${esc(b.balances)}</h2>
${balancesTable(balance)}
</section>
${awaiting.items.length ? awaitingSection(awaiting, { isAdmin: o.isAdmin, everyShop: false }) : ''}
<section class="card" id="adjustment"><h2>${esc(a.title)}</h2>
<p class="muted">${esc(a.intro)}</p>
${form}
</section>
<section class="card" id="transactions"><h2>${esc(b.transactions)}</h2>
${
  page.items.length
    ? `<div class="table-wrap"><table><thead><tr><th>${esc(b.created)}</th><th>${esc(b.kind)}</th><th>${esc(b.source)}</th><th class="num">${esc(b.gross)}</th><th class="num">${esc(b.fee)}</th><th class="num">${esc(b.net)}</th><th class="num">${esc(b.amount)}</th><th class="num">${esc(b.rate)}</th><th>${esc(b.availableOn)}</th></tr></thead><tbody>
${transactionRows(page)}
</tbody></table></div>`
    : `<p class="muted">${esc(b.noTransactions)}</p>`
}
<p>${o.paged ? `<a href="/ops/console/shops/${esc(shopId)}/books">${esc(b.newest)}</a> ` : ''}${page.nextCursor ? `<a href="/ops/console/shops/${esc(shopId)}/books?cursor=${esc(encodeURIComponent(page.nextCursor))}">${esc(b.older)}</a>` : ''}</p>
</section>`,
  );
}

/** A shop's fee lines and settlement delay, with the forms that set them for an operator. */
export function shopFeesPage(
  frame: Frame,
  shopId: string,
  fees: FeeListView,
  settlement: SettlementView,
  canAct: boolean,
): string {
  const f = b.fees;
  const s = b.settlement;
  const api = `/ops/v1/shops/${esc(shopId)}`;
  const rows = fees.fees
    .map(
      (x, i) => `<tr data-fee="${esc(x.method)}/${esc(x.currency)}">
<td class="mono">${esc(x.method)}</td><td>${esc(x.currency)}</td>
<td class="num">${esc(x.percent)} %</td><td class="num">${amount(x.fixed, x.currency)}</td><td class="num">${amount(x.minimum, x.currency)}</td>
<td class="mono nowrap">${esc(when(x.updatedAt))}</td>
${
  canAct
    ? `<td><form class="discard" data-api="${api}/fees/{method}/{currency}" data-method="DELETE">
<input type="hidden" name="method" value="${esc(x.method)}"><input type="hidden" name="currency" value="${esc(x.currency)}">
<input type="text" name="reason" required maxlength="500" aria-label="${esc(f.removeReason)}" placeholder="${esc(f.removeReason)}" id="fee-delete-${i}">
<button type="submit" class="small danger">${esc(f.remove)}</button><p role="alert" hidden></p></form></td>`
    : ''
}
</tr>`,
    )
    .join('\n');
  return layout(
    frame,
    `<h1>${esc(b.shopTitle)} <span class="mono">${esc(shopId)}</span></h1>
${shopLinks(shopId, 'fees')}
${canAct ? '' : `<p class="notice">${esc(b.viewerOnly)}</p>`}
<section class="card" id="fees"><h2>${esc(f.title)}</h2>
<p class="muted">${esc(f.intro)}</p>
${
  fees.fees.length
    ? `<div class="table-wrap"><table><thead><tr><th>${esc(f.method)}</th><th>${esc(b.currency)}</th><th class="num">${esc(f.percent)}</th><th class="num">${esc(f.fixed)}</th><th class="num">${esc(f.minimum)}</th><th>${esc(f.updated)}</th>${canAct ? '<th></th>' : ''}</tr></thead><tbody>
${rows}
</tbody></table></div>`
    : `<p class="muted">${esc(f.none)}</p>`
}
${
  canAct
    ? `<h3>${esc(f.set)}</h3><p class="muted">${esc(f.setHint)}</p>
<form data-api="${api}/fees/{method}/{currency}" data-method="PUT" class="settings" id="set-fee">
  ${field('fee-method', 'method', f.method, ' required maxlength="64" placeholder="card or *"')}
  ${field('fee-currency', 'currency', b.currency, ' required maxlength="40" placeholder="USD"')}
  ${field('fee-percent', 'percent', f.percent, ' required maxlength="20" inputmode="decimal" value="0"')}
  ${field('fee-fixed', 'fixed', f.fixed, ' required maxlength="60" inputmode="decimal" value="0"')}
  ${field('fee-minimum', 'minimum', f.minimum, ' required maxlength="60" inputmode="decimal" value="0"')}
  ${field('fee-reason', 'reason', f.reason, ' required maxlength="500"')}
  <p role="alert" hidden></p>
  <div><button type="submit">${esc(f.submit)}</button></div>
</form>`
    : ''
}
</section>
<section class="card" id="settlement"><h2>${esc(s.title)}</h2>
<p class="muted">${esc(s.intro)}</p>
<p data-settlement="${settlement.settlementDelaySeconds}"><strong>${esc(s.current(settlement.settlementDelaySeconds, settlement.default))}</strong></p>
${
  canAct
    ? `<form data-api="${api}/settlement" data-method="PUT" class="settings" id="set-settlement">
  <div><label for="settlement-seconds">${esc(s.seconds)}</label><input type="number" id="settlement-seconds" name="settlementDelaySeconds" min="0" max="31536000" step="1" required value="${settlement.settlementDelaySeconds}"></div>
  ${field('settlement-reason', 'reason', s.reason, ' required maxlength="500"')}
  <p role="alert" hidden></p>
  <div><button type="submit">${esc(s.submit)}</button></div>
</form>`
    : ''
}
</section>`,
  );
}
