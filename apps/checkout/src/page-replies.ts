import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { CheckoutOrderView, Reply } from '@payments/contracts';
import { cardNumbersIn } from '@payments/methods-domain';
import { messagePage, MessageKind } from './pages/order-page';
import { pickLocale } from './pages/strings';

/** What another service answered a page: its result, its refusal, or nothing (it is down). */
export type Outcome<T> =
  { kind: 'ok'; value: T } | { kind: 'refused'; reply: Extract<Reply<T>, { ok: false }> } | { kind: 'down' };

/** Where the page sends the payer back: the merchant's URL with the order id and status added. */
export function returnUrl(base: string, v: CheckoutOrderView): string {
  const url = new URL(base);
  url.searchParams.set('orderId', v.orderId);
  url.searchParams.set('status', v.status);
  return url.toString();
}

/**
 * A form value to show again, or nothing when it carries a card number: looked for inside longer
 * numbers too (decision 258), since echoing less than the input rule refuses is the safe side.
 */
export function noCardIn(value: string): string {
  return cardNumbersIn(value, { insideLongerNumbers: true }).length > 0 ? '' : value;
}

/**
 * The headers of every page: a CSP that runs only this answer's inline script and style (its
 * nonce), forms posting only here (the merchant's origins are there for the redirect that may
 * follow a submit), never framed; never cached, no Referer (the link is a credential).
 */
export function secure(reply: FastifyReply, v?: { redirectUrls?: { success?: string; failure?: string } }): string {
  const nonce = randomBytes(16).toString('base64');
  const origins = [v?.redirectUrls?.success, v?.redirectUrls?.failure]
    .filter((u): u is string => !!u)
    .map((u) => new URL(u).origin);
  reply.header(
    'content-security-policy',
    [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "img-src 'self' data:",
      `form-action 'self'${[...new Set(origins)].map((o) => ` ${o}`).join('')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  );
  reply.header('cache-control', 'no-store');
  reply.header('referrer-policy', 'no-referrer');
  return nonce;
}

/** Sends a page's HTML with its status. */
export function sendPage(reply: FastifyReply, status: number, html: string): void {
  void reply.status(status).type('text/html; charset=utf-8').send(html);
}

/** A payment page's message (paid, failed, expired, busy…), in the payer's language. */
export function sendMessage(
  status: number,
  kind: MessageKind,
  req: FastifyRequest,
  reply: FastifyReply,
  lang: string | undefined,
  path: string,
  v?: CheckoutOrderView,
  back?: string,
): void {
  const locale = pickLocale(lang, v?.locale, req.headers['accept-language']);
  const nonce = secure(reply, v);
  sendPage(
    reply,
    status,
    messagePage(kind, { locale, nonce, path, ...(v ? { v } : {}), ...(back ? { back: returnUrl(back, v!) } : {}) }),
  );
}

/** A link nobody knows is the not-found page; a service that did not answer, the busy page. */
export function sendNotFoundOrDown(
  outcome: { kind: 'refused' } | { kind: 'down' },
  req: FastifyRequest,
  reply: FastifyReply,
  lang: string | undefined,
  path: string,
): void {
  if (outcome.kind === 'refused') return sendMessage(404, 'notFound', req, reply, lang, path);
  reply.header('retry-after', '2');
  sendMessage(503, 'busy', req, reply, lang, path);
}
