import type { CardBrand, CheckoutOrderView, PageLocale } from '@payments/contracts';
import { esc } from './html';
import { layout } from './layout';
import { CATALOGUE, Strings } from './strings';

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
var R={humo:function(p){return/^9860/.test(p)&&p.length==16},uzcard:function(p){return/^8600/.test(p)&&p.length==16},
visa:function(p){return/^4/.test(p)&&[13,16,19].indexOf(p.length)>=0},
mastercard:function(p){var a=+p.slice(0,2),b=+p.slice(0,4);return((a>=51&&a<=55)||(b>=2221&&b<=2720))&&p.length==16},
mir:function(p){return/^220[0-4]/.test(p)},unionpay:function(p){return/^62/.test(p)},maestro:function(p){return/^(5018|5020|5038|6304|6759|676[1-3])/.test(p)},amex:function(p){return/^3[47]/.test(p)&&p.length==15}};
function luhn(p){var s=0;for(var i=0;i<p.length;i++){var n=+p[p.length-1-i];if(i%2){n*=2;if(n>9)n-=9}s+=n}return s%10==0}
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
  const providers = o.providers?.length
    ? `<section class="providers" aria-label="${esc(t.orPayWith)}"><p class="muted">${esc(t.orPayWith)}</p>${o.providers
        .map(
          (p) =>
            `<a class="btn provider" id="pay-${esc(p.code)}" href="${esc(p.href)}" rel="noopener">${esc(t.payWith.replace('{provider}', p.name))}</a>`,
        )
        .join('')}</section>`
    : '';
  const errors = o.errors ?? {};
  const chosen = o.chosen ?? o.methods[0]?.code;
  const invalid = Object.values(errors).some(Boolean);
  const methods = o.methods
    .map(
      (m, i) =>
        `<label class="method"><input type="radio" name="method" value="${esc(m.code)}" data-kind="${m.kind}" data-brands="${esc(m.brands.join(','))}" data-names="${esc(brandList(m.brands))}"${m.code === chosen || (!chosen && i === 0) ? ' checked' : ''}> <span class="name">${esc(m.kind === 'app' ? t.appPay : t.card)}</span><span class="muted">${esc(m.kind === 'app' ? t.app : brandList(m.brands))}</span></label>`,
    )
    .join('');
  const field = (id: 'cardNumber' | 'expiry', label: string, attrs: string, value = '') =>
    `<label for="${id}">${esc(label)}</label><input type="text" id="${id}" name="${id}" ${attrs} value="${esc(value)}" aria-describedby="${id}-err" aria-invalid="${errors[id] ? 'true' : 'false'}"><p class="err" id="${id}-err" role="alert">${esc(errors[id] ?? '')}</p>`;
  const body = `<p class="shop">${esc(t.payTo)} <strong>${esc(v.shopName ?? v.merchantOrderId)}</strong></p>
<h1><span class="muted">${esc(t.amount)}</span><br><span class="amount">${esc(formatMoney(v.amount, v.currency, o.locale))}</span></h1>
<p class="muted">${esc(t.order)} ${esc(v.merchantOrderId)}${v.description ? ` · ${esc(v.description)}` : ''}</p>
<div class="timer" role="timer" aria-live="off"><span>${esc(t.timeLeft)}</span><strong id="left" data-end="${esc(v.expiresAt)}">${remaining(v.expiresAt, o.now)}</strong></div>
${invalid ? `<p class="alert" role="alert">${esc(t.errForm)}</p>` : ''}
<form id="pay" method="post" action="${esc(o.path)}" novalidate autocomplete="on">
<fieldset><legend>${esc(t.method)}</legend>${methods}</fieldset>
<div id="card-fields">${field('cardNumber', t.cardNumber, `inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="0000 0000 0000 0000" required`)}
${field('expiry', t.expiry, `inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" required`, o.values?.expiry)}
<label for="holder">${esc(t.holder)}</label><input type="text" id="holder" name="holder" autocomplete="cc-name" maxlength="64" value="${esc(o.values?.holder ?? '')}"></div>
<input type="hidden" name="lang" value="${o.locale}">
<button id="submit" type="submit" data-busy="${esc(t.paying)}" data-pay="${esc(`${t.pay} ${formatMoney(v.amount, v.currency, o.locale)}`)}" data-app="${esc(t.appPay)}">${esc(t.pay)} ${esc(formatMoney(v.amount, v.currency, o.locale))}</button>
</form>${providers}<p class="muted secure">${esc(t.secure)}</p>`;
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

export function icon(kind: keyof typeof ICON): string {
  const [color, path] = ICON[kind];
  return `<svg class="icon" viewBox="0 0 24 24" width="48" height="48" aria-hidden="true" focusable="false"><circle cx="12" cy="12" r="11" fill="${color}"/><g fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round">${path}</g></svg>`;
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
    ? `<p class="muted">${esc(o.v.shopName ?? '')} · ${esc(formatMoney(o.v.amount, o.v.currency, o.locale))}${o.v.maskedCard ? ` · ${esc(o.v.maskedCard.slice(-4).padStart(8, '•'))}` : ''}</p>`
    : '';
  const body = `${icon(m.icon)}<h1 tabindex="-1" id="msg">${esc(t[m.title])}</h1><p role="status">${esc(t[m.text])}</p>${amount}${o.back ? `<a class="btn" href="${esc(o.back)}">${esc(t.backToShop)}</a>` : ''}`;
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
  const body = `<p class="shop">${esc(t.payTo)} <strong>${esc(v.shopName ?? v.merchantOrderId)}</strong></p>
<h1><span class="muted">${esc(t.amount)}</span><br><span class="amount">${esc(formatMoney(i.amount, i.currency, o.locale))}</span></h1>
<p role="status">${esc(t.approveInApp)}</p>
<a class="btn phone" id="deeplink" href="${esc(i.deeplinks.app)}">${esc(t.openApp)}</a>
<div class="desktop qr"><figure><div class="qr-code">${o.qrSvg}</div><figcaption class="muted">${esc(t.scanQr)}</figcaption></figure></div>
<p class="muted"><a id="universal" href="${esc(i.deeplinks.universal)}" rel="noopener">${esc(t.openHere)}</a></p>`;
  return layout({ locale: o.locale, title: t.appPay, nonce: o.nonce, path: o.path, refreshSeconds: 3 }, body);
}
