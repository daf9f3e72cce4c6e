import type { RouteStep } from '@payments/contracts';
import type {
  ProviderCallsIn,
  ProviderSends,
  ProvidersReport,
  ProviderWindow,
  ShopRoute,
} from '../../overview/providers.service';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { Frame, layout, when } from './layout';

// The Providers panel (issue 30, decisions 329-331): how each provider is doing, and the shops' routes.
const t = en.providers;

const num = (n: number) => n.toLocaleString('en-US');
const ms = (v: number | null) => (v === null ? t.none : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`);
/** A success rate below this is shown as bad. */
const LOW_SUCCESS = 0.9;

function rate(r: number | null): string {
  if (r === null) return `<td class="num muted" data-field="successRate">${t.none}</td>`;
  const shown = `${(r * 100).toFixed(1)} %`;
  return `<td class="num${r < LOW_SUCCESS ? ' bad' : ''}" data-field="successRate">${shown}</td>`;
}

const count = (field: string, n: number, bad = false) =>
  `<td class="num${bad && n > 0 ? ' bad' : ''}" data-field="${field}">${num(n)}</td>`;

function sendsTable(rows: ProviderSends[]): string {
  if (!rows.length) return `<p class="muted">${esc(t.noSends)}</p>`;
  const head = [t.provider, t.kind]
    .map((h) => `<th>${esc(h)}</th>`)
    .concat(
      // The success rate first: on a phone it is what shows before the table scrolls.
      [t.successRate, t.total, t.accepted, t.refused, t.unavailable, t.timedOut, t.p50, t.p99].map(
        (h) => `<th class="num">${esc(h)}</th>`,
      ),
    )
    .concat(`<th>${esc(t.lastError)}</th>`)
    .join('');
  const body = rows
    .map(
      (r) => `<tr data-provider="${esc(r.provider)}" data-kind="${esc(r.kind)}">
<td class="mono nowrap">${esc(r.provider)}</td><td>${esc(t.kinds[r.kind] ?? r.kind)}</td>${rate(r.successRate)}
${count('sends', r.sends)}${count('accepted', r.accepted)}${count('refused', r.refused, true)}${count('unavailable', r.unavailable, true)}${count('timedOut', r.timedOut, true)}
<td class="num nowrap" data-field="p50">${ms(r.p50Ms)}</td><td class="num nowrap" data-field="p99">${ms(r.p99Ms)}</td>
<td class="mono nowrap" data-field="lastErrorAt">${r.lastErrorAt ? esc(when(r.lastErrorAt)) : t.none}</td>
</tr>`,
    )
    .join('\n');
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></div>`;
}

function callsInTable(rows: ProviderCallsIn[]): string {
  if (!rows.length) return `<p class="muted">${esc(t.noCallsIn)}</p>`;
  const body = rows
    .map(
      (r) => `<tr data-provider="${esc(r.provider)}">
<td class="mono nowrap">${esc(r.provider)}</td>${count('attempts', r.attempts)}${count('success', r.success)}${count('failed', r.failed, true)}${count('pending', r.pending)}
<td class="mono nowrap" data-field="lastFailedAt">${r.lastFailedAt ? esc(when(r.lastFailedAt)) : t.none}</td>
</tr>`,
    )
    .join('\n');
  return `<div class="table-wrap"><table><thead><tr><th>${esc(t.provider)}</th><th class="num">${esc(t.attempts)}</th><th class="num">${esc(t.success)}</th><th class="num">${esc(t.failed)}</th><th class="num">${esc(t.pending)}</th><th>${esc(t.lastFailed)}</th></tr></thead><tbody>
${body}
</tbody></table></div>`;
}

/** A step's conditions in a few words: `visa, mastercard · USD · ≤ 5000.00`. */
function conditions(step: RouteStep): string {
  const w = step.when;
  if (!w) return '';
  const amount =
    w.minAmount && w.maxAmount
      ? `${w.minAmount}–${w.maxAmount}`
      : w.minAmount
        ? `≥ ${w.minAmount}`
        : w.maxAmount
          ? `≤ ${w.maxAmount}`
          : '';
  return [w.instrumentTypes?.join(', '), w.brands?.join(', '), w.currencies?.join(', '), amount]
    .filter(Boolean)
    .join(' · ');
}

/** Each shop's routes: a row naming the shop, then one row per method (an id fits a phone on its own row). */
function routesTable(routes: ShopRoute[]): string {
  if (!routes.length) return `<p class="muted">${esc(t.noRoutes)}</p>`;
  const body = routes
    .map((r, i) => {
      const steps = r.providers
        .map((step) => {
          const c = conditions(step);
          return `<li><span class="mono nowrap">${esc(step.provider)}</span>${c ? ` <span class="muted">(${esc(c)})</span>` : ''}</li>`;
        })
        .join('');
      const shop =
        i === 0 || routes[i - 1].shopId !== r.shopId
          ? `<tr><th colspan="3">${esc(t.shop)} <span class="mono">${esc(r.shopId)}</span></th></tr>\n`
          : '';
      return `${shop}<tr data-shop="${esc(r.shopId)}" data-method="${esc(r.method)}">
<td class="mono">${esc(r.method)}</td><td><ol class="route">${steps}</ol></td><td class="mono nowrap">${esc(when(r.updatedAt))}</td>
</tr>`;
    })
    .join('\n');
  return `<div class="table-wrap"><table><thead><tr><th>${esc(t.method)}</th><th>${esc(t.route)}</th><th>${esc(t.updated)}</th></tr></thead><tbody>
${body}
</tbody></table></div>`;
}

export function providersPage(frame: Frame, report: ProvidersReport, window: ProviderWindow): string {
  const windows = report.windows
    .map((w) =>
      w === window
        ? `<strong aria-current="true">${esc(t.windows[w] ?? w)}</strong>`
        : `<a href="/ops/console/providers?window=${esc(w)}">${esc(t.windows[w] ?? w)}</a>`,
    )
    .join(' · ');
  const inWindow = <T extends { window: string }>(rows: T[]) => rows.filter((r) => r.window === window);
  const notRead = report.unavailable.length
    ? `<p class="notice">${esc(t.notRead(report.unavailable.join(', ')))}</p>`
    : '';
  return layout(
    frame,
    `<h1>${esc(t.title)}</h1>
<p class="lead">${esc(t.intro)}</p>
<p class="card" data-window="${esc(window)}">${esc(t.window)}: ${windows}</p>
${notRead}
<section class="card" aria-labelledby="h-sends" id="sends"><h2 id="h-sends">${esc(t.sends)} <span class="muted">· ${esc(t.windows[window] ?? window)}</span></h2>
<p class="muted">${esc(t.sendsNote)}</p>
${sendsTable(inWindow(report.sends))}
</section>
<section class="card" aria-labelledby="h-calls-in" id="calls-in"><h2 id="h-calls-in">${esc(t.callsIn)} <span class="muted">· ${esc(t.windows[window] ?? window)}</span></h2>
<p class="muted">${esc(t.callsInNote)}</p>
${callsInTable(inWindow(report.callsIn))}
</section>
<section class="card" aria-labelledby="h-routes" id="routes"><h2 id="h-routes">${esc(t.routes)}</h2>
<p class="muted">${esc(t.routesNote)}</p>
${report.routesUnavailable ? `<p class="notice">${esc(t.notRead(t.routes.toLowerCase()))}</p>` : routesTable(report.routes)}
</section>
<p class="muted">${esc(when(report.at))} UTC</p>`,
  );
}
