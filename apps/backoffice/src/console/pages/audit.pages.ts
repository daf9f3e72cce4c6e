import type { AuditRecord } from '../../operators/audit.repository';
import { esc } from '../console.html';
import { en } from '../console.strings';
import { Frame, layout } from './layout';

const t = en;

function change(r: AuditRecord): string {
  if (r.before === null && r.after === null) return '';
  return `<details><summary>JSON</summary><pre>${esc(JSON.stringify({ before: r.before, after: r.after }, null, 1))}</pre></details>`;
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
