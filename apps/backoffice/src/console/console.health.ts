import type { ServiceInstanceHealth } from '../overview/service-health.collector';
import { esc } from './console.html';
import { en } from './console.strings';

const t = en.overview.services;

/**
 * The overview's first card: every instance of every service, ready or not and why, from their
 * health reports. What is wrong comes first; a service with every instance ready takes one line.
 */
export function servicesSection(services: ServiceInstanceHealth[]): string {
  if (services.length === 0) return `<p class="muted">${esc(t.none)}</p>`;
  const order = { not_live: 0, not_ready: 1, stale: 2, ready: 3 } as const;
  const rows = [...services]
    .sort((a, b) => order[a.state] - order[b.state] || a.service.localeCompare(b.service))
    .map((s) => {
      const why =
        s.state === 'stale'
          ? t.staleWhy(s.secondsSinceReport)
          : s.problems.map((p) => `${p.component}: ${p.detail}`).join('; ');
      return `<tr data-service="${esc(s.service)}" data-instance="${esc(s.instanceId)}" data-state="${s.state}">
<td>${esc(s.service)}</td><td class="mono">${esc(s.instanceId)}</td>
<td class="${s.state === 'ready' ? 'ok' : 'bad'}">${esc(t.states[s.state])}</td>
<td>${esc(why)}</td>
<td class="num${s.repliesDropped > 0 ? ' bad' : ''}">${s.repliesDropped.toLocaleString('en-US')}</td></tr>`;
    })
    .join('\n');
  return `<div class="table-wrap"><table><thead><tr><th>${esc(t.service)}</th><th>${esc(t.instance)}</th><th>${esc(t.state)}</th><th>${esc(t.why)}</th><th class="num">${esc(t.repliesDropped)}</th></tr></thead><tbody>
${rows}
</tbody></table></div>`;
}
