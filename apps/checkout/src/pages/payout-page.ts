import type { CardBrand, CheckoutPayoutView, PageLocale } from '@payments/contracts';
import { cardChecksScript } from '@payments/methods-domain';
import { joinMarkup, markup } from '@payments/html';
import { layout } from './layout';
import { brandList, formatMoney, icon, remaining } from './order-page';
import { CATALOGUE, Strings } from './strings';

/** The card checks of the server, for the page's script (libs/methods-domain). */
const CARD_CHECKS = cardChecksScript();

/** One of the shop's payout methods as the page offers it. */
export interface PayoutPageMethod {
  code: string;
  instrumentType: string;
  brands: readonly CardBrand[];
}

/** One field the chosen method needs (the rules of /payouts/fields), as a form input. */
export interface PayoutPageField {
  /** The payee member, e.g. cardNumber. */
  name: string;
  format: string;
  required: boolean;
  pattern?: string;
}

const KIND_LABEL: Record<string, keyof Strings> = {
  card: 'mCard',
  wallet: 'mWallet',
  crypto: 'mCrypto',
  bank_transfer: 'mBank',
  mobile_top_up: 'mPhone',
};

/** The label of a payee field in the page's language; an unknown one shows its name. */
export function fieldLabel(t: Strings, name: string): string {
  const key = `f${name.charAt(0).toUpperCase()}${name.slice(1)}` as keyof Strings;
  return key in t ? t[key] : name;
}

/**
 * The page's only script: the countdown, and before the form leaves, the same checks as the
 * server for a card number (format, the method's BIN ranges, Luhn) and required fields, shown
 * next to each field. Without JavaScript the server answers the same errors.
 */
function script(t: Strings): string {
  const msg = JSON.stringify({ format: t.errFormat, brand: t.errBrand, luhn: t.errLuhn, required: t.errRequired });
  return `(function(){var d=document,M=${msg};
var el=d.getElementById('left'),end=Date.parse(el&&el.getAttribute('data-end'));
function tick(){var s=Math.max(0,Math.floor((end-Date.now())/1000)),h=Math.floor(s/3600),m=Math.floor(s%3600/60),x=s%60;
el.textContent=(h?h+':':'')+(m<10?'0':'')+m+':'+(x<10?'0':'')+x;if(s<=0){location.reload()}}
if(el){tick();setInterval(tick,1000)}
var f=d.getElementById('payout');if(!f)return;
${CARD_CHECKS}
function show(i,text){var e=d.getElementById(i.id+'-err');e.textContent=text||'';i.setAttribute('aria-invalid',text?'true':'false');return !text}
f.addEventListener('submit',function(e){var first=null,ins=f.querySelectorAll('input[type=text]');
for(var k=0;k<ins.length;k++){var i=ins[k],v=i.value.trim(),err='';
if(!v){if(i.required)err=M.required}else if(i.getAttribute('data-format')=='pan'){var p=v.replace(/[\\s-]/g,''),b=(i.getAttribute('data-brands')||'').split(',').filter(Boolean);
if(!/^\\d{12,19}$/.test(p))err=M.format;else if(b.length&&!b.some(function(x){return R[x]&&R[x](p)}))err=M.brand.replace('{brands}',i.getAttribute('data-names'));else if(!luhn(p))err=M.luhn}
if(!show(i,err)&&!first)first=i}
if(first){e.preventDefault();first.focus();return}var s=d.getElementById('submit');s.disabled=true;s.textContent=s.getAttribute('data-busy')})})();`;
}

export function payoutPage(
  v: CheckoutPayoutView,
  o: {
    locale: PageLocale;
    nonce: string;
    path: string;
    methods: readonly PayoutPageMethod[];
    chosen?: PayoutPageMethod;
    fields: readonly PayoutPageField[];
    errors?: Record<string, string>;
    alert?: string;
    values?: Record<string, string>;
    now: Date;
  },
): string {
  const t = CATALOGUE[o.locale];
  const errors = o.errors ?? {};
  const money = formatMoney(v.amount, v.currency, o.locale);
  const methods = o.methods.map((m) => {
    const current = m.code === o.chosen?.code;
    const label = `${t[KIND_LABEL[m.instrumentType] ?? 'mCard']}${m.brands.length > 0 ? ` · ${brandList(m.brands)}` : ''}`;
    return markup`<a class="method" href="${o.path}?lang=${o.locale}&amp;method=${encodeURIComponent(m.code)}" data-method="${m.code}"${current && markup` aria-current="true"`}><span class="name">${current ? '● ' : '○ '}${label}</span></a>`;
  });
  const inputs = joinMarkup(
    o.fields.map((f) => {
      const id = `f-${f.name}`;
      const pan = f.format === 'pan';
      const attrs = pan
        ? markup`inputmode="numeric" autocomplete="off" maxlength="23" placeholder="0000 0000 0000 0000" data-brands="${(o.chosen?.brands ?? []).join(',')}" data-names="${brandList(o.chosen?.brands ?? [])}"`
        : markup`maxlength="128"`;
      const value = pan ? '' : (o.values?.[f.name] ?? '');
      return markup`<label for="${id}">${fieldLabel(t, f.name)}${f.required ? '' : markup` <span class="muted">(${t.optional})</span>`}</label><input type="text" id="${id}" name="${f.name}" data-format="${f.format}" ${attrs}${f.required ? ' required' : ''} value="${value}" aria-describedby="${id}-err" aria-invalid="${errors[f.name] ? 'true' : 'false'}"><p class="err" id="${id}-err" role="alert">${errors[f.name] ?? ''}</p>`;
    }),
    '\n',
  );
  const alert = o.alert ?? (Object.values(errors).some(Boolean) ? t.errForm : undefined);
  const body = markup`<p class="shop">${t.payoutFor} <strong>${v.merchantPayoutId}</strong></p>
<h1><span class="muted">${t.payoutAmount}</span><br><span class="amount">${money}</span></h1>
${v.description ? markup`<p class="muted">${v.description}</p>` : ''}
<div class="timer" role="timer" aria-live="off"><span>${t.payoutTimeLeft}</span><strong id="left" data-end="${v.expiresAt}">${remaining(v.expiresAt, o.now)}</strong></div>
${alert ? markup`<p class="alert" role="alert">${alert}</p>` : ''}
<nav aria-label="${t.payoutMethod}"><p class="legend">${t.payoutMethod}</p>${methods}</nav>
${
  o.chosen
    ? markup`<form id="payout" method="post" action="${o.path}" novalidate autocomplete="off">
<fieldset><legend>${t.payoutDetails}</legend>${inputs}</fieldset>
<input type="hidden" name="method" value="${o.chosen.code}"><input type="hidden" name="lang" value="${o.locale}">
<button id="submit" type="submit" data-busy="${t.paying}">${t.payoutSubmit} · ${money}</button>
</form>`
    : ''
}<p class="muted secure">${t.payoutSecure}</p>`;
  return layout(
    {
      locale: o.locale,
      title: `${t.payoutTitle} · ${v.merchantPayoutId}`,
      nonce: o.nonce,
      path: o.path,
      script: script(t),
      heading: t.payoutTitle,
    },
    body,
  );
}

export type PayoutMessageKind = 'processing' | 'completed' | 'failed' | 'expired' | 'used';

const MESSAGE: Record<
  PayoutMessageKind,
  { title: keyof Strings; text: keyof Strings; icon: Parameters<typeof icon>[0] }
> = {
  processing: { title: 'payoutProcessingTitle', text: 'payoutProcessing', icon: 'clock' },
  completed: { title: 'payoutCompletedTitle', text: 'payoutCompleted', icon: 'ok' },
  failed: { title: 'payoutFailedTitle', text: 'payoutFailed', icon: 'bad' },
  expired: { title: 'payoutExpiredTitle', text: 'payoutExpired', icon: 'clock' },
  used: { title: 'payoutUsedTitle', text: 'payoutUsed', icon: 'info' },
};

/** Where the payout is, after the recipient's submission (reloading itself while in progress) or when the link is over. */
export function payoutMessagePage(
  kind: PayoutMessageKind,
  o: { locale: PageLocale; nonce: string; path: string; v: CheckoutPayoutView; back?: string },
): string {
  const t = CATALOGUE[o.locale];
  const m = MESSAGE[kind];
  const masked = o.v.maskedPayee ? markup` · ${o.v.maskedPayee.slice(-4).padStart(8, '•')}` : '';
  const body = markup`${icon(m.icon)}<h1 tabindex="-1" id="msg">${t[m.title]}</h1><p role="status">${t[m.text]}</p><p class="muted">${o.v.merchantPayoutId} · ${formatMoney(o.v.amount, o.v.currency, o.locale)}${masked}</p>${o.back ? markup`<a class="btn" href="${o.back}">${t.backToShop}</a>` : ''}`;
  return layout(
    {
      locale: o.locale,
      title: t[m.title],
      nonce: o.nonce,
      path: o.path,
      heading: t.payoutTitle,
      ...(kind === 'processing' ? { refreshSeconds: 2 } : {}),
    },
    body,
  );
}
