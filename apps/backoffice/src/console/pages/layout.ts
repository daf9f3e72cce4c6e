import { esc } from '../console.html';
import type { Operator } from '../../operators/operators';
import { en } from '../console.strings';

// The frame every console page shares (the head, the navigation, who is signed in) and the formats they share.
const t = en;

export type Page =
  | 'overview'
  | 'need-action'
  | 'orders'
  | 'payouts'
  | 'p2p'
  | 'callbacks'
  | 'dead-letters'
  | 'books'
  | 'audit'
  | 'providers';

export interface Frame {
  nonce: string;
  operator?: Operator;
  csrfToken?: string;
  current?: Page;
  title: string;
}

function nav(frame: Frame): string {
  if (!frame.operator) return '';
  const link = (page: Page, href: string, label: string) =>
    `<a href="${href}"${frame.current === page ? ' aria-current="page"' : ''}>${esc(label)}</a>`;
  return `<nav aria-label="Console">
      ${link('overview', '/ops/console', t.nav.overview)}
      ${link('need-action', '/ops/console/need-action', t.nav.needAction)}
      ${link('orders', '/ops/console/orders', t.nav.orders)}
      ${link('payouts', '/ops/console/payouts', t.nav.payouts)}
      ${link('p2p', '/ops/console/p2p', t.nav.p2p)}
      ${link('providers', '/ops/console/providers', t.nav.providers)}
      ${link('callbacks', '/ops/console/callbacks', t.nav.callbacks)}
      ${link('dead-letters', '/ops/console/dead-letters', t.nav.deadLetters)}
      ${link('books', '/ops/console/books', t.nav.books)}
      ${link('audit', '/ops/console/audit', t.nav.audit)}
    </nav>
    <div class="who">
      <span class="who-name"><span class="sr-only">${esc(t.nav.signedInAs)} </span><strong title="${esc(frame.operator.name)}">${esc(frame.operator.name)}</strong> (${esc(frame.operator.role)})</span>
      <form class="inline" data-api="/ops/console/sign-out" data-next="/ops/console/sign-in?signed-out=1">
        <button type="submit" class="link">${esc(t.nav.signOut)}</button>
      </form>
    </div>`;
}

export function layout(frame: Frame, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${frame.csrfToken ? `<meta name="csrf-token" content="${esc(frame.csrfToken)}">` : ''}
<title>${esc(frame.title)} · ${esc(t.product)}</title>
<link rel="stylesheet" href="/ops/console/assets/console.css" nonce="${frame.nonce}">
</head>
<body data-msg-failed="${esc(t.errors.failed)}">
<header><span class="brand">${esc(t.product)}</span>${nav(frame)}</header>
<main>
${body}
</main>
<script src="/ops/console/assets/console.js" nonce="${frame.nonce}"></script>
</body>
</html>`;
}

export function signInPage(frame: Frame, signedOut: boolean): string {
  return layout(
    frame,
    `<div class="signin card">
  <h1>${esc(t.signIn.title)}</h1>
  ${signedOut ? `<p class="notice">${esc(t.signIn.signedOut)}</p>` : ''}
  <p class="lead">${esc(t.signIn.intro)}</p>
  <form data-api="/ops/console/sign-in" data-next="/ops/console">
    <div><label for="token">${esc(t.signIn.token)}</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required></div>
    <p role="alert" hidden></p>
    <button type="submit">${esc(t.signIn.submit)}</button>
  </form>
</div>`,
  );
}

/** What a person sees when a page's data could not be read: in English, with the trace id to quote. */
export function errorPage(frame: Frame, detail: string): string {
  return layout(
    frame,
    `<h1>${esc(t.errors.title)}</h1>
<p class="notice">${esc(detail)}</p>
<p><a href="">${esc(t.errors.retry)}</a></p>`,
  );
}

/** An amount as the pages show it: `10.00 USDT (TRC20)`, or a dash. */
export type Money = { amount: string; currency: string; tokenStandard?: string };
export const money = (m: Money | undefined) =>
  m ? `${m.amount} ${m.currency}${m.tokenStandard ? ` (${m.tokenStandard})` : ''}` : '—';
export const when = (iso: string) => iso.replace('T', ' ').slice(0, 19);

/** The row of a hosted page's link: where it is, never the link itself (it pays or pays out). */
export function linkRow(
  label: string,
  who: 'payer' | 'recipient',
  status: string | undefined,
  expiresAt: string | undefined,
): string {
  if (!status) return '';
  return `\n  <dt>${esc(label)}</dt><dd data-link-status="${esc(status)}">${esc(t.orders.linkStatus(status, expiresAt ? when(expiresAt) : undefined, who))}</dd>`;
}

/** One status change of an order or transfer, as its callback told the merchant. */
export interface StatusStep {
  at: string;
  from: string | null;
  to: string;
  deliveryId: string;
  delivery: string;
}
