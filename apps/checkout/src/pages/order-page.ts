import type { CardBrand, CheckoutOrderView, PageLocale } from '@payments/contracts';
import { cardChecksScript } from '@payments/methods-domain';
import { type Html, markup, raw } from '@payments/html';
import { layout } from './layout';
import { CATALOGUE, Strings } from './strings';

/** The card checks of the server, for the page's script (libs/methods-domain). */
const CARD_CHECKS = cardChecksScript();

export interface PageMethod {
  code: string;
  /** card: the card form (dataEntryMode card_form); app: deeplink and QR (dataEntryMode instruction). */
  kind: 'card' | 'app';
  brands: readonly CardBrand[];
}

/** A provider the payer pays in its own app from a link (Click): a button beside the form. */
export interface ProviderLink {
  /** The provider's code: the button's id is `pay-<code>`. */
  code: string;
  name: string;
  href: string;
}

export interface FieldErrors {
  cardNumber?: string;
  expiry?: string;
  method?: string;
}

const BRAND_NAMES: Record<CardBrand, string> = {
  humo: 'HUMO',
  uzcard: 'Uzcard',
  visa: 'Visa',
  mastercard: 'Mastercard',
  mir: 'Mir',
  unionpay: 'UnionPay',
  maestro: 'Maestro',
  amex: 'American Express',
};

export function brandList(brands: readonly CardBrand[]): string {
  return brands.map((b) => BRAND_NAMES[b]).join(', ');
}

/** The amount as people read it in the page's language: grouped thousands, the currency code. */
export function formatMoney(amount: string, currency: string, locale: PageLocale): string {
  const [whole, fraction] = amount.split('.');
  const sep = locale === 'en' ? ',' : '\u00a0';
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  const point = locale === 'en' ? '.' : ',';
  return `${grouped}${fraction ? point + fraction : ''} ${currency}`;
}

export function remaining(expiresAt: string, now: Date): string {
  const s = Math.max(0, Math.floor((Date.parse(expiresAt) - now.getTime()) / 1000));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/**
 * The page's only script (about 1.5 KB): the countdown, and the same checks as the server before
 * the form leaves (Luhn, the chosen method's BINs, expiry), shown next to each field. Without
 * JavaScript the form still works: the server checks and answers the same errors.
 */
function script(t: Strings): string {
  const msg = JSON.stringify({ format: t.errFormat, brand: t.errBrand, luhn: t.errLuhn, expiry: t.errExpiry });
  return `(function(){var d=document,M=${msg};
var el=d.getElementById('left'),end=Date.parse(el&&el.getAttribute('data-end'));
function tick(){var s=Math.max(0,Math.floor((end-Date.now())/1000)),h=Math.floor(s/3600),m=Math.floor(s%3600/60),x=s%60;
el.textContent=(h?h+':':'')+(m<10?'0':'')+m+':'+(x<10?'0':'')+x;if(s<=0){location.reload()}}
if(el){tick();setInterval(tick,1000)}
var f=d.getElementById('pay');if(!f)return;var cf=d.getElementById('card-fields');
function mode(){var m=f.querySelector('input[name=method]:checked');var app=m&&m.getAttribute('data-kind')=='app';cf.hidden=app;
d.getElementById('submit').textContent=app?d.getElementById('submit').getAttribute('data-app'):d.getElementById('submit').getAttribute('data-pay')}
f.addEventListener('change',mode);mode();
${CARD_CHECKS}
function show(id,text){var i=d.getElementById(id),e=d.getElementById(id+'-err');e.textContent=text||'';i.setAttribute('aria-invalid',text?'true':'false');return !text}
var cn=d.getElementById('cardNumber');cn.addEventListener('input',function(){var v=cn.value.replace(/\\D/g,'').slice(0,19);cn.value=v.replace(/(\\d{4})(?=\\d)/g,'$1 ')});
f.addEventListener('submit',function(e){var m=f.querySelector('input[name=method]:checked')||f.querySelector('input[name=method]');
if(m.getAttribute('data-kind')=='app'){var b0=d.getElementById('submit');b0.disabled=true;return}
var brands=(m.getAttribute('data-brands')||'').split(','),names=m.getAttribute('data-names'),p=cn.value.replace(/[\\s-]/g,''),err='';
if(!/^\\d{12,19}$/.test(p))err=M.format;else if(!brands.some(function(b){return R[b]&&R[b](p)}))err=M.brand.replace('{brands}',names);else if(!luhn(p))err=M.luhn;
var ok1=show('cardNumber',err),x=d.getElementById('expiry').value.trim(),mm=/^(0[1-9]|1[0-2])\\s*\\/\\s*(\\d{2}|\\d{4})$/.exec(x),ok2=true;
if(!mm)ok2=false;else{var y=mm[2].length==2?2000+ +mm[2]:+mm[2],now=new Date();ok2=y>now.getFullYear()||(y==now.getFullYear()&&+mm[1]>=now.getMonth()+1)}
show('expiry',ok2?'':M.expiry);if(!ok1||!ok2){e.preventDefault();d.getElementById(ok1?'expiry':'cardNumber').focus();return}
var b=d.getElementById('submit');b.disabled=true;b.textContent=b.getAttribute('data-busy')})})();`;
}

export function orderPage(
  v: CheckoutOrderView,
  o: {
    locale: PageLocale;
    nonce: string;
    path: string;
    methods: readonly PageMethod[];
    chosen?: string;
    errors?: FieldErrors;
    values?: { expiry?: string; holder?: string };
    now: Date;
    /** Providers paid from their own app (libs/providers/*): a deeplink button each. */
    providers?: readonly ProviderLink[];
  },
): string {
  const t = CATALOGUE[o.locale];
  const providers = !o.providers?.length
    ? ''
    : markup`<section class="providers" aria-label="${t.orPayWith}"><p class="muted">${t.orPayWith}</p>${o.providers.map(
        (p) =>
          markup`<a class="btn provider" id="pay-${p.code}" href="${p.href}" rel="noopener">${t.payWith.replace('{provider}', p.name)}</a>`,
      )}</section>`;
  const errors = o.errors ?? {};
  const chosen = o.chosen ?? o.methods[0]?.code;
  const invalid = Object.values(errors).some(Boolean);
  const methods = o.methods.map(
    (m, i) =>
      markup`<label class="method"><input type="radio" name="method" value="${m.code}" data-kind="${m.kind}" data-brands="${m.brands.join(',')}" data-names="${brandList(m.brands)}"${(m.code === chosen || (!chosen && i === 0)) && markup` checked`}> <span class="name">${m.kind === 'app' ? t.appPay : t.card}</span><span class="muted">${m.kind === 'app' ? t.app : brandList(m.brands)}</span></label>`,
  );
  const field = (id: 'cardNumber' | 'expiry', label: string, attrs: Html, value = '') =>
    markup`<label for="${id}">${label}</label><input type="text" id="${id}" name="${id}" ${attrs} value="${value}" aria-describedby="${id}-err" aria-invalid="${errors[id] ? 'true' : 'false'}"><p class="err" id="${id}-err" role="alert">${errors[id] ?? ''}</p>`;
  const body = markup`<p class="shop">${t.payTo} <strong>${v.shopName ?? v.merchantOrderId}</strong></p>
<h1><span class="muted">${t.amount}</span><br><span class="amount">${formatMoney(v.amount, v.currency, o.locale)}</span></h1>
<p class="muted">${t.order} ${v.merchantOrderId}${v.description ? markup` · ${v.description}` : ''}</p>
<div class="timer" role="timer" aria-live="off"><span>${t.timeLeft}</span><strong id="left" data-end="${v.expiresAt}">${remaining(v.expiresAt, o.now)}</strong></div>
${invalid ? markup`<p class="alert" role="alert">${t.errForm}</p>` : ''}
<form id="pay" method="post" action="${o.path}" novalidate autocomplete="on">
<fieldset><legend>${t.method}</legend>${methods}</fieldset>
<div id="card-fields">${field('cardNumber', t.cardNumber, markup`inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="0000 0000 0000 0000" required`)}
${field('expiry', t.expiry, markup`inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" required`, o.values?.expiry)}
<label for="holder">${t.holder}</label><input type="text" id="holder" name="holder" autocomplete="cc-name" maxlength="64" value="${o.values?.holder ?? ''}"></div>
<input type="hidden" name="lang" value="${o.locale}">
<button id="submit" type="submit" data-busy="${t.paying}" data-pay="${`${t.pay} ${formatMoney(v.amount, v.currency, o.locale)}`}" data-app="${t.appPay}">${t.pay} ${formatMoney(v.amount, v.currency, o.locale)}</button>
</form>${providers}<p class="muted secure">${t.secure}</p>`;
  return layout(
    {
      locale: o.locale,
      title: `${t.title} · ${v.shopName ?? v.merchantOrderId}`,
      nonce: o.nonce,
      path: o.path,
      script: script(t),
    },
    body,
  );
}

export type MessageKind = 'processing' | 'paid' | 'failed' | 'expired' | 'used' | 'notFound' | 'busy' | 'noMethod';

/** Icons as inline SVG: no emoji font or image request needed (CSP img-src does not apply). */
const ICON = {
  ok: ['#1a7f37', '<path d="M7 12.5l3 3 7-7" />'],
  bad: ['#b3261e', '<path d="M8 8l8 8M16 8l-8 8" />'],
  clock: ['#9a6700', '<circle cx="12" cy="12" r="6" /><path d="M12 9v3l2 2" />'],
  info: ['#1f6feb', '<path d="M12 11v6M12 7.5v.5" />'],
} as const;

export function icon(kind: keyof typeof ICON): Html {
  const [color, path] = ICON[kind];
  return markup`<svg class="icon" viewBox="0 0 24 24" width="48" height="48" aria-hidden="true" focusable="false"><circle cx="12" cy="12" r="11" fill="${color}"/><g fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round">${raw(path)}</g></svg>`;
}

const MESSAGE: Record<MessageKind, { title: keyof Strings; text: keyof Strings; icon: keyof typeof ICON }> = {
  processing: { title: 'processingTitle', text: 'processing', icon: 'clock' },
  paid: { title: 'paidTitle', text: 'paid', icon: 'ok' },
  failed: { title: 'failedTitle', text: 'failed', icon: 'bad' },
  expired: { title: 'expiredTitle', text: 'expired', icon: 'clock' },
  used: { title: 'usedTitle', text: 'used', icon: 'info' },
  notFound: { title: 'notFoundTitle', text: 'notFound', icon: 'info' },
  busy: { title: 'busyTitle', text: 'busy', icon: 'clock' },
  noMethod: { title: 'noMethodTitle', text: 'noMethod', icon: 'info' },
};

/** A page that says one thing: in progress (and reloads itself), paid, failed, expired, used, unknown. */
export function messagePage(
  kind: MessageKind,
  o: { locale: PageLocale; nonce: string; path: string; v?: CheckoutOrderView; back?: string },
): string {
  const t = CATALOGUE[o.locale];
  const m = MESSAGE[kind];
  const amount = o.v
    ? markup`<p class="muted">${o.v.shopName ?? ''} · ${formatMoney(o.v.amount, o.v.currency, o.locale)}${o.v.maskedCard ? markup` · ${o.v.maskedCard.slice(-4).padStart(8, '•')}` : ''}</p>`
    : '';
  const body = markup`${icon(m.icon)}<h1 tabindex="-1" id="msg">${t[m.title]}</h1><p role="status">${t[m.text]}</p>${amount}${o.back ? markup`<a class="btn" href="${o.back}">${t.backToShop}</a>` : ''}`;
  return layout(
    {
      locale: o.locale,
      title: t[m.title],
      nonce: o.nonce,
      path: o.path,
      ...(kind === 'processing' ? { refreshSeconds: 2 } : {}),
    },
    body,
  );
}

/**
 * An app payment under way: on a phone the deeplink button (and the universal link), on a desktop
 * the QR code of the universal link to scan with the phone; the page reloads itself until the
 * order is final, then sends the payer back to the shop.
 */
export function appPage(
  v: CheckoutOrderView,
  o: { locale: PageLocale; nonce: string; path: string; qrSvg: string },
): string {
  const t = CATALOGUE[o.locale];
  const i = v.instructions!;
  const body = markup`<p class="shop">${t.payTo} <strong>${v.shopName ?? v.merchantOrderId}</strong></p>
<h1><span class="muted">${t.amount}</span><br><span class="amount">${formatMoney(i.amount, i.currency, o.locale)}</span></h1>
<p role="status">${t.approveInApp}</p>
<a class="btn phone" id="deeplink" href="${i.deeplinks.app}">${t.openApp}</a>
<div class="desktop qr"><figure><div class="qr-code">${raw(o.qrSvg)}</div><figcaption class="muted">${t.scanQr}</figcaption></figure></div>
<p class="muted"><a id="universal" href="${i.deeplinks.universal}" rel="noopener">${t.openHere}</a></p>`;
  return layout({ locale: o.locale, title: t.appPay, nonce: o.nonce, path: o.path, refreshSeconds: 3 }, body);
}
