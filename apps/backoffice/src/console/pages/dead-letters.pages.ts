import { DeadLetterStatuses, type DeadLetterView } from '../../dead-letters/dead-letter.repository';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { Frame, layout, when } from './layout';

const t = en;

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
