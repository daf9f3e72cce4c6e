import type { FastifyReply } from 'fastify';

/** Text for HTML: every character that could end an attribute or start a tag, as a reference. */
export function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A provider's colours on its simulator page: the page, the main button's text, the second button. */
export interface SimulatorLook {
  name: string;
  background: string;
  strong: string;
}

const css = (
  l: SimulatorLook,
) => `body{margin:0;font:16px/1.5 system-ui,sans-serif;background:${l.background};color:#fff}
main{max-width:24rem;margin:0 auto;padding:2rem 1rem}h1{font-size:1.25rem}.amount{font-size:2rem;font-weight:700;overflow-wrap:anywhere}
button,a.btn{display:block;width:100%;box-sizing:border-box;text-align:center;font-size:1.1rem;padding:.8rem;border:0;border-radius:8px;margin-top:1rem;cursor:pointer;text-decoration:none}
.ok{background:#fff;color:${l.strong}}.no{background:${l.strong};color:#fff}button:focus,a:focus{outline:3px solid #ffd54f}
.error{background:#fff;color:#a00000;border-radius:8px;padding:.6rem .8rem}details{margin-top:1.5rem;font-size:.85rem}
details ol{padding-left:1.2rem;overflow-wrap:anywhere}code{font-size:.85rem}`;

/**
 * The page a provider's app shows the payer, played by the sandbox (Click's, Payme's): one column,
 * in English, no script, no asset from elsewhere.
 */
export function sendSimulatorPage(reply: FastifyReply, look: SimulatorLook, body: string, status = 200): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${look.name} (sandbox)</title><style>${css(look)}</style></head><body><main><h1>${look.name} <small>(sandbox)</small></h1>${body}</main></body></html>`;
  void reply.header(
    'content-security-policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  );
  void reply.header('cache-control', 'no-store');
  void reply.status(status).type('text/html; charset=utf-8').send(html);
}

/** "Back to the shop", to the return URL the link carried, when it is a web address. */
export function backToShop(returnUrl: string | undefined): string {
  return returnUrl && /^https?:\/\//.test(returnUrl)
    ? `<a class="btn no" id="back" href="${esc(returnUrl)}">Back to the shop</a>`
    : '';
}

/** Which order and how much, under every outcome. */
export function orderSummary(orderId: string, amountInSums: string): string {
  return `<p>Order ${esc(orderId.slice(0, 8))}…, ${esc(amountInSums)} UZS</p>`;
}

/** The outcome line: a status when it went through, an alert (boxed, readable) when it did not. */
export function outcomeLine(ok: boolean, text: string): string {
  return ok
    ? `<p role="status" id="outcome">${esc(text)}</p>`
    : `<p role="alert" class="error" id="outcome">${esc(text)}</p>`;
}
