import type { DeliveryDetailView, DeliveryPage } from '@payments/contracts';
import { DeliveryStatuses } from '@payments/contracts';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { Frame, layout, when } from './layout';

const t = en;

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
