import type { PageLocale } from '@payments/contracts';
import { type Html, markup, raw } from '@payments/html';
import { CATALOGUE } from './strings';

/**
 * The one stylesheet of the pages, inline under the page's nonce: no request for it, no
 * third-party asset. Mobile first; a card of at most 28rem centred on a desktop.
 */
const CSS = `*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#eef1f5}
main{max-width:28rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:1.25rem 1.25rem 1.5rem}
header.top{display:flex;justify-content:space-between;align-items:center;gap:.5rem;margin:.25rem 0 .75rem;font-size:.875rem}
nav.lang a{color:#36414d;margin-left:.5rem}nav.lang a[aria-current]{font-weight:700;text-decoration:none;color:#1b1f24}
h1{font-size:1.25rem;margin:0 0 .75rem}.shop{color:#4a5561;margin:0}
.amount{font-size:2rem;font-weight:700;margin:.25rem 0}.muted{color:#55606c;font-size:.875rem}
.timer{display:flex;justify-content:space-between;background:#f4f6f9;border-radius:8px;padding:.5rem .75rem;margin:1rem 0}
.timer strong{font-variant-numeric:tabular-nums}
fieldset{border:0;padding:0;margin:0 0 1rem}legend{font-weight:600;margin-bottom:.5rem}
.method{display:flex;gap:.5rem;align-items:center;border:1px solid #c9d0d8;border-radius:8px;padding:.6rem .75rem;margin-bottom:.5rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text]{width:100%;font-size:1.125rem;padding:.7rem .75rem;border:1px solid #8a96a3;border-radius:8px}
input:focus,button:focus,a:focus{outline:3px solid #1f6feb;outline-offset:2px}
input[aria-invalid=true]{border-color:#b3261e;background:#fff7f7}
.err{color:#b3261e;font-size:.875rem;margin:.25rem 0 0}.err:empty{display:none}
.alert{background:#fdecea;color:#8c1d18;border-radius:8px;padding:.6rem .75rem;margin:0 0 1rem}
.row{display:flex;gap:.75rem}.row>div{flex:1}
button{width:100%;margin-top:1.25rem;font-size:1.125rem;font-weight:600;padding:.85rem;border:0;border-radius:8px;background:#1f6feb;color:#fff;cursor:pointer}
button[disabled]{background:#7b9fd6}
.btn{display:block;text-align:center;text-decoration:none;margin-top:1rem;padding:.85rem;border-radius:8px;background:#1f6feb;color:#fff;font-weight:600}
.brands{margin:.5rem 0 0}.secure{margin-top:1rem}
.icon{display:block;margin:.25rem 0 .75rem}
.qr-code svg{display:block;width:220px;height:220px;margin:0 auto}figure{margin:1rem 0;text-align:center}
.phone{display:none}@media (max-width:40rem){.phone{display:block}.desktop{display:none}}
.method .name{white-space:nowrap}a.method{color:inherit;text-decoration:none}
a.method[aria-current]{border-color:#1f6feb;background:#f0f6ff;font-weight:600}.legend{font-weight:600;margin:0 0 .5rem}.method .muted{margin-left:auto;text-align:right;font-weight:400}`;

export interface LayoutOptions {
  locale: PageLocale;
  title: string;
  nonce: string;
  /** The page's own path: the language links point to it. */
  path: string;
  /** Seconds after which the page reloads itself (the status view follows the order). */
  refreshSeconds?: number;
  script?: string;
  /** The header's name of the page: "Payment" unless said (a payout page). */
  heading?: string;
}

export function layout(o: LayoutOptions, body: Html): string {
  const langs = (['uz', 'ru', 'en'] as const).map(
    (l) =>
      markup`<a href="${o.path}?lang=${l}" hreflang="${l}" lang="${l}"${l === o.locale && markup` aria-current="true"`}>${CATALOGUE[l].lang}</a>`,
  );
  return markup`<!doctype html><html lang="${o.locale}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">${o.refreshSeconds ? markup`<meta http-equiv="refresh" content="${o.refreshSeconds}">` : ''}
<title>${o.title}</title><style nonce="${o.nonce}">${raw(CSS)}</style></head>
<body><main><header class="top"><span class="muted">${o.heading ?? CATALOGUE[o.locale].title}</span><nav class="lang" aria-label="Language">${langs}</nav></header>
<div class="card">${body}</div></main>${o.script ? markup`<script nonce="${o.nonce}">${raw(o.script)}</script>` : ''}</body></html>`.toString();
}
