/**
 * The console's one script, served by the backoffice itself (no CDN; CSP allows it by nonce): forms
 * marked data-api are sent as JSON to their /ops/v1 route with the session's CSRF token, and a
 * region marked data-refresh is fetched again every few seconds.
 */
export const CONSOLE_SCRIPT = `(() => {
  'use strict';
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content');
  const failed = document.body.dataset.msgFailed;
  document.addEventListener('submit', async (event) => {
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || !form.dataset.api) return;
      event.preventDefault();
      const alert = form.querySelector('[role="alert"]');
      const body = {};
      for (const [key, value] of new FormData(form)) {
        const input = form.elements.namedItem(key);
        if (key.endsWith('[]')) (body[key.slice(0, -2)] ??= []).push(value);
        else if (value !== '') body[key] = input instanceof HTMLInputElement && input.type === 'number' ? Number(value) : value;
      }
      // A route with {names} in its path takes those fields there (a fee line's method and currency).
      const api = form.dataset.api.replace(/\\{(\\w+)\\}/g, (_, name) => {
        const value = String(body[name] ?? '');
        delete body[name];
        return encodeURIComponent(value).replace(/\\*/g, '%2A');
      });
      const headers = { 'content-type': 'application/json', accept: 'application/json' };
      if (csrf) headers['x-csrf-token'] = csrf;
      // A form that must not act twice carries the Idempotency-Key made with the page.
      if (form.dataset.idempotencyKey) headers['idempotency-key'] = form.dataset.idempotencyKey;
      const button = form.querySelector('button[type="submit"]');
      if (button) button.disabled = true;
      try {
        const res = await fetch(api, {
          method: form.dataset.method || 'POST',
          headers,
          body: JSON.stringify(body),
          credentials: 'same-origin',
        });
        if (res.ok) {
          location.assign(form.dataset.next || location.href);
          return;
        }
        let detail = failed;
        try {
          const problem = await res.json();
          detail = problem.detail || problem.title || detail;
        } catch {}
        if (alert) {
          alert.textContent = detail;
          alert.hidden = false;
        }
      } finally {
        if (button) button.disabled = false;
      }
  });
  const live = document.querySelector('[data-refresh]');
  if (live) {
    setInterval(async () => {
      // Never under the hands of someone typing a reason: the next refresh comes soon enough.
      if (live.contains(document.activeElement) && document.activeElement !== document.body) return;
      if ([...live.querySelectorAll('input[type="text"]')].some((i) => i.value !== '')) return;
      try {
        const res = await fetch(live.dataset.refresh, { credentials: 'same-origin', redirect: 'manual' });
        if (res.status === 200) live.innerHTML = await res.text();
        else if (res.status === 401 || res.type === 'opaqueredirect') location.assign('/ops/console/sign-in');
      } catch {}
    }, Number(live.dataset.every) || 5000);
  }
})();
`;

export const CONSOLE_STYLE = `
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6472; --line: #d9dee6; --bg: #f5f7fa; --accent: #1f5fbf; --bad: #b3261e; --ok: #1e7a3c; }
* { box-sizing: border-box; }
a { color: var(--accent); }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header { display: flex; flex-wrap: nowrap; align-items: center; gap: 8px 16px; padding: 10px 16px; background: #fff; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 600; white-space: nowrap; }
nav { display: flex; flex-wrap: wrap; gap: 4px 12px; flex: 1 1 auto; min-width: 0; font-size: 14px; }
nav a { color: var(--accent); text-decoration: none; padding: 4px 0; white-space: nowrap; }
nav a[aria-current="page"] { color: var(--ink); font-weight: 600; border-bottom: 2px solid var(--accent); }
.who { color: var(--muted); font-size: 14px; display: flex; align-items: center; gap: 10px; flex: none; white-space: nowrap; }
.who-name { display: inline-flex; gap: 4px; min-width: 0; }
.who-name strong { max-width: 140px; overflow: hidden; text-overflow: ellipsis; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
main { padding: 20px; max-width: 1240px; margin: 0 auto; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0 0 10px; }
.lead { color: var(--muted); margin: 0 0 18px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(370px, 1fr)); gap: 16px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; min-width: 0; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bad { color: var(--bad); font-weight: 600; }
.muted { color: var(--muted); }
.ok { color: var(--ok); font-weight: 600; }
section.services { margin-bottom: 16px; }
svg.spark { display: block; }
svg.spark polyline { fill: none; stroke: var(--accent); stroke-width: 1.5; }
form.inline { display: inline; }
button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.link { background: none; color: var(--accent); border: none; padding: 0; }
button:disabled { opacity: 0.6; }
label { display: block; font-weight: 500; margin: 0 0 4px; }
input[type="password"], input[type="text"] { font: inherit; width: 100%; padding: 8px 10px; border: 1px solid var(--line); border-radius: 6px; }
.signin { max-width: 420px; margin: 60px auto; }
.signin form > * + * { margin-top: 12px; }
[role="alert"] { color: var(--bad); margin: 8px 0 0; }
.notice { background: #eef4ff; border: 1px solid #c9dafc; padding: 8px 12px; border-radius: 6px; margin: 0 0 14px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; overflow-wrap: anywhere; }
.nowrap { white-space: nowrap; }
td .why { overflow-wrap: anywhere; font-size: 13px; }
details summary { cursor: pointer; color: var(--accent); }
pre { white-space: pre-wrap; word-break: break-all; font-size: 12px; margin: 6px 0 0; }
.orders { display: grid; gap: 16px; }
main > .card + .card, main > form.card + .card { margin-top: 16px; }
form.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-end; }
form.filters input { width: 340px; max-width: 100%; }
select { font: inherit; padding: 7px 8px; border: 1px solid var(--line); border-radius: 6px; }
button.small { padding: 3px 10px; font-size: 14px; }
form.discard { display: flex; gap: 6px; flex-wrap: wrap; }
form.discard input { width: 200px; padding: 4px 8px; }
form.replay { margin-top: 12px; max-width: 480px; }
form.settings { display: flex; flex-wrap: wrap; gap: 10px 14px; align-items: flex-end; margin-top: 8px; }
form.settings > div { flex: 1 1 180px; min-width: 0; }
form.settings > div:last-child { flex: 0 0 auto; }
form.settings [role="alert"] { flex: 1 1 100%; order: 1; }
input[type="number"] { font: inherit; width: 100%; padding: 8px 10px; border: 1px solid var(--line); border-radius: 6px; }
section.card h3 { font-size: 15px; margin: 14px 0 4px; }
form.replay > * + * { margin-top: 6px; }
.order h2 { margin-bottom: 8px; }
.order h3 { font-size: 15px; margin: 12px 0 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; min-width: 0; }
ol.events, ol.route { margin: 0; padding-left: 20px; }
.actions { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; margin-top: 14px; border-top: 1px solid var(--line); padding-top: 12px; }
.actions form > * + * { margin-top: 6px; }
button.danger { background: var(--bad); border-color: var(--bad); }
@media (max-width: 600px) {
  dl { grid-template-columns: 1fr; gap: 0; }
  dd { margin-bottom: 6px; }
  .actions { grid-template-columns: 1fr; }
  main { padding: 12px; }
  header { padding: 8px 12px; flex-wrap: wrap; }
  header .brand { flex: 1 1 auto; }
  .who { order: 1; }
  nav { order: 2; flex: 1 1 100%; gap: 2px 14px; }
  nav a { padding: 6px 0; }
  .grid { grid-template-columns: 1fr; }
  .card { padding: 12px; }
  th, td { padding: 5px 6px; }
  /* A shop's balances: one block per currency, each figure under its name, none scrolled out of sight. */
  /* Likewise a credit waiting for a rate: why it is parked and its release stay in sight. */
  table.balances thead, table.awaiting thead { display: none; }
  table.balances tr, table.awaiting tr { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; padding: 8px 0; border-bottom: 1px solid var(--line); }
  table.balances td, table.awaiting td { border: none; padding: 0; }
  table.balances td:first-child, table.awaiting td.wide { grid-column: 1 / -1; }
  table.awaiting td.num { text-align: left; }
  table.balances td[data-label]::before, table.awaiting td[data-label]::before { content: attr(data-label); display: block; color: var(--muted); font-size: 12px; font-weight: 400; }
}
`;
