import { Body, Controller, Get, Inject, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import Decimal from 'decimal.js';
import { CardVault } from '@payments/card-vault';
import {
  CardBrand,
  CardRef,
  CheckoutOrderView,
  CheckoutPayoutView,
  GetPayoutForCheckoutQuery,
  PageLocale,
  PayoutCommandTypes,
  PayoutFieldSpec,
  ResolvedPayoutMethod,
  ResolvePayoutMethodQuery,
  SubmitPayoutDetailsCommand,
  GetOrderForCheckoutQuery,
  LinkPurpose,
  MethodListView,
  MethodQueryTypes,
  OrderCommandTypes,
  parseLinkToken,
  PayHostedCommand,
  Reply,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import {
  cardNumbersIn,
  checkCardNumber,
  checkExpiry,
  checkPayee,
  NO_CARD_NUMBER,
  DEFAULT_PAGE_CARD_BRANDS,
} from '@payments/methods-domain';
import { RateLimiter } from '@payments/platform';
import { CARD_VAULT, CHECKOUT_CONFIG, CheckoutConfig, REQUEST_CLIENT } from './config';
import { providerLinksFor } from './provider-links';
import { LiveViewCache } from './live-view-cache';
import QRCode from 'qrcode';
import { appPage, brandList, FieldErrors, messagePage, MessageKind, orderPage, PageMethod } from './pages/order-page';
import { CATALOGUE, pickLocale } from './pages/strings';
import {
  PayoutMessageKind,
  payoutMessagePage,
  payoutPage,
  PayoutPageField,
  PayoutPageMethod,
} from './pages/payout-page';

type Outcome<T> =
  { kind: 'ok'; value: T } | { kind: 'refused'; reply: Extract<Reply<T>, { ok: false }> } | { kind: 'down' };

const SUCCESS = new Set(['completed', 'partially_refunded', 'refunded']);
const PAYOUT_SUCCESS = new Set(['completed']);
/** The code an expired payout link leaves on its payout (cancelled by the sweep). */
const PAYOUT_LINK_EXPIRED = '1-07-09';

/** The inputs of a payout method's payee fields (the rules of /payouts/fields). */
export function pageFields(fields: readonly PayoutFieldSpec[]): PayoutPageField[] {
  return fields.map((f) => ({
    name: f.path.startsWith('payee.') ? f.path.slice('payee.'.length) : f.path,
    format: f.format,
    required: f.required,
    ...(f.pattern ? { pattern: f.pattern } : {}),
  }));
}
const FAILURE = new Set(['failed', 'cancelled']);
const METHODS_TTL_MS = 30_000;
/** A methods service that did not answer is asked again after this long: pages do not wait on it meanwhile. */
const METHODS_DOWN_TTL_MS = 5_000;

/** Where the page sends the payer back: the merchant's URL with the order id and status added. */
export function returnUrl(base: string, v: CheckoutOrderView): string {
  const url = new URL(base);
  url.searchParams.set('orderId', v.orderId);
  url.searchParams.set('status', v.status);
  return url.toString();
}

/**
 * The hosted payment page (ARCHITECTURE.md section 8): public, no API key. The link's token is
 * the only credential; it is turned into the order id and the token's hash here and never sent
 * on. Every answer is server-rendered HTML with a CSP of its own nonce.
 */
@Controller()
export class CheckoutController {
  private readonly logger = new Logger(CheckoutController.name);
  private readonly perClient: RateLimiter;
  private readonly perLink: RateLimiter;
  private readonly methodsCache = new Map<string, { at: number; ttl: number; methods: PageMethod[] }>();
  private readonly orderViews: LiveViewCache<CheckoutOrderView>;
  private readonly payoutViews: LiveViewCache<CheckoutPayoutView>;

  constructor(
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    @Inject(CARD_VAULT) private readonly vault: CardVault,
    @Inject(CHECKOUT_CONFIG) private readonly config: CheckoutConfig,
  ) {
    this.perClient = new RateLimiter(config.perClient.perSecond, config.perClient.burst);
    this.perLink = new RateLimiter(config.perLink.perSecond, config.perLink.burst);
    const views = {
      maxAgeMs: config.viewMaxAgeMs,
      refreshAfterMs: Math.floor(config.viewMaxAgeMs / 2),
      maxEntries: 10_000,
    };
    this.orderViews = new LiveViewCache<CheckoutOrderView>(views);
    this.payoutViews = new LiveViewCache<CheckoutPayoutView>(views);
  }

  @Get('pay/:token')
  async page(
    @Param('token') token: string,
    @Query('lang') lang: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const link = this.admit(token, req, reply, lang);
    if (!link) return;
    const found = await this.orderViews.get(link.linkHash, () => this.read(link.id, link.linkHash));
    if (found.kind !== 'ok') return this.notFoundOrDown(found, req, reply, lang, link.path);
    await this.show(found.value, req, reply, lang, link.path);
  }

  @Post('pay/:token')
  async pay(
    @Param('token') token: string,
    @Body() body: Record<string, unknown> | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const form = (body ?? {}) as Record<string, unknown>;
    const text = (k: string) => (typeof form[k] === 'string' ? (form[k] as string).slice(0, 64) : '');
    const lang = text('lang') || undefined;
    const link = this.admit(token, req, reply, lang);
    if (!link) return;
    const found = await this.read(link.id, link.linkHash);
    if (found.kind !== 'ok') return this.notFoundOrDown(found, req, reply, lang, link.path);
    const v = found.value;
    if (v.linkStatus !== 'live') return this.show(v, req, reply, lang, link.path, true);
    const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
    const t = CATALOGUE[locale];
    const methods = await this.methodsFor(v);
    if (methods.length === 0) return this.show(v, req, reply, lang, link.path);
    const method =
      methods.find((m) => m.code === text('method')) ?? (form.method === undefined ? methods[0] : undefined);
    if (method?.kind === 'app') return this.payInApp(method, link, req, reply, locale);
    const errors: FieldErrors = {};
    const card = checkCardNumber(text('cardNumber'), method?.brands ?? []);
    if (!method) errors.method = t.errForm;
    else if (card.kind === 'invalid')
      errors.cardNumber = { format: t.errFormat, brand: t.errBrand, luhn: t.errLuhn }[card.reason].replace(
        '{brands}',
        brandList(method.brands),
      );
    const now = new Date();
    if (!checkExpiry(text('expiry'), { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 }))
      errors.expiry = t.errExpiry;
    if (!method || card.kind === 'invalid' || errors.expiry) {
      const nonce = this.secure(reply, v);
      // The number is never echoed back: the payer types it again.
      void reply
        .status(400)
        .type('text/html; charset=utf-8')
        .send(
          orderPage(v, {
            locale,
            nonce,
            path: link.path,
            methods,
            chosen: method?.code,
            errors,
            // Nor is anything that carries a card number (typed into the wrong field).
            values: { expiry: noCardIn(text('expiry')), holder: noCardIn(text('holder')) },
            now,
          }),
        );
      return;
    }
    let tokenized: Awaited<ReturnType<CardVault['tokenize']>>;
    try {
      tokenized = await this.vault.tokenize(card.pan);
    } catch (err) {
      // The vault (its database) is down: the busy page, not a JSON 500; nothing was sent on.
      this.logger.warn(`the card was not tokenized: ${(err as Error).message}`);
      return this.notFoundOrDown({ kind: 'down' }, req, reply, lang, link.path);
    }
    const command: PayHostedCommand = {
      orderId: link.id,
      linkHash: link.linkHash,
      method: method.code,
      card: { token: tokenized.token, bin: tokenized.bin, last4: tokenized.last4, masked: tokenized.masked },
    };
    return this.submit(command, link, req, reply, locale, lang);
  }

  /** An app method: no card; the orders service has the adapter build the deeplinks. */
  private async payInApp(
    method: PageMethod,
    link: { id: string; linkHash: string; path: string },
    req: FastifyRequest,
    reply: FastifyReply,
    locale: string,
  ): Promise<void> {
    const command: PayHostedCommand = {
      orderId: link.id,
      linkHash: link.linkHash,
      method: method.code,
      dataEntryMode: 'instruction',
    };
    return this.submit(command, link, req, reply, locale, locale);
  }

  /**
   * Sends the one payment of a link (card or app) and answers: back to the page that follows the
   * order; when the other tab (or a replay) was first, nothing was queued for this one and the
   * page answers 409 (section 8); anything else is the not-found or busy page. `lang` is the
   * language the error pages are asked for.
   */
  private async submit(
    command: PayHostedCommand,
    link: { id: string; linkHash: string; path: string },
    req: FastifyRequest,
    reply: FastifyReply,
    locale: string,
    lang: string | undefined,
  ): Promise<void> {
    const paid = await this.orderViews.changing(link.linkHash, () =>
      this.ask<CheckoutOrderView>(Topics.ordersCommands, link.id, OrderCommandTypes.payHosted, command),
    );
    if (paid.kind === 'ok') {
      void reply.status(303).header('location', `${link.path}?lang=${locale}`).send();
      return;
    }
    if (paid.kind === 'refused' && paid.reply.error.code === 'conflict') {
      const again = await this.read(link.id, link.linkHash);
      if (again.kind === 'ok') return this.show(again.value, req, reply, lang, link.path, true);
    }
    return this.notFoundOrDown(paid, req, reply, lang, link.path);
  }

  /** Parses the token and takes from both rate limits; answers the page itself when it may not go on. */
  private admit(
    token: string,
    req: FastifyRequest,
    reply: FastifyReply,
    lang: string | undefined,
    purpose: LinkPurpose = 'order',
  ): { id: string; linkHash: string; path: string } | undefined {
    const parsed = parseLinkToken(purpose, token);
    const path = `/${purpose === 'order' ? 'pay' : 'payout'}/${parsed ? token : ''}`;
    const now = Date.now();
    const client = this.perClient.take(req.ip, now);
    // Keyed by the token's hash, not the order id (not secret): forged tokens for a real order
    // fill buckets of their own and cannot lock the payer's link out.
    const perLink = parsed ? this.perLink.take(parsed.linkHash, now) : client;
    if (!client.allowed || !perLink.allowed) {
      reply.header('retry-after', String(Math.max(client.retryAfterSeconds, perLink.retryAfterSeconds)));
      this.message(429, 'busy', req, reply, lang, path);
      return undefined;
    }
    if (!parsed) {
      this.message(404, 'notFound', req, reply, lang, path);
      return undefined;
    }
    return { ...parsed, path };
  }

  /** The page for where the order and its link are. */
  private async show(
    v: CheckoutOrderView,
    req: FastifyRequest,
    reply: FastifyReply,
    lang: string | undefined,
    path: string,
    afterSubmit = false,
  ): Promise<void> {
    const back = SUCCESS.has(v.status)
      ? v.redirectUrls?.success
      : FAILURE.has(v.status)
        ? v.redirectUrls?.failure
        : undefined;
    const expired = v.linkStatus === 'expired' || (v.linkStatus === 'closed' && v.statusCode === '1-07-08');
    if (expired) return this.message(410, 'expired', req, reply, lang, path, v, v.redirectUrls?.failure);
    if (v.linkStatus === 'live') {
      const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
      const methods = await this.methodsFor(v);
      if (methods.length === 0)
        return this.message(200, 'noMethod', req, reply, lang, path, v, v.redirectUrls?.failure);
      const nonce = this.secure(reply, v);
      void reply
        .status(200)
        .type('text/html; charset=utf-8')
        .send(
          orderPage(v, {
            locale,
            nonce,
            path,
            methods,
            now: new Date(),
            providers: providerLinksFor(v, this.config.click),
          }),
        );
      return;
    }
    if (afterSubmit && v.linkStatus === 'used' && !SUCCESS.has(v.status) && !FAILURE.has(v.status))
      return this.message(409, 'used', req, reply, lang, path, v);
    if (v.instructions && !SUCCESS.has(v.status) && !FAILURE.has(v.status)) {
      const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
      const qrSvg = await QRCode.toString(v.instructions.qr, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      const nonce = this.secure(reply, v);
      void reply.status(200).type('text/html; charset=utf-8').send(appPage(v, { locale, nonce, path, qrSvg }));
      return;
    }
    // A submit after the order is final (a replay, a late tab) is a 409, not the way back.
    if (afterSubmit && (SUCCESS.has(v.status) || FAILURE.has(v.status)))
      return this.message(409, SUCCESS.has(v.status) ? 'used' : 'failed', req, reply, lang, path, v, back);
    if (back) {
      void reply.status(303).header('location', returnUrl(back, v)).send();
      return;
    }
    const kind: MessageKind = SUCCESS.has(v.status) ? 'paid' : FAILURE.has(v.status) ? 'failed' : 'processing';
    this.message(afterSubmit && kind !== 'processing' ? 409 : 200, kind, req, reply, lang, path, v);
  }

  private message(
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
    const nonce = this.secure(reply, v);
    void reply
      .status(status)
      .type('text/html; charset=utf-8')
      .send(
        messagePage(kind, { locale, nonce, path, ...(v ? { v } : {}), ...(back ? { back: returnUrl(back, v!) } : {}) }),
      );
  }

  private notFoundOrDown(
    outcome: { kind: 'refused' } | { kind: 'down' },
    req: FastifyRequest,
    reply: FastifyReply,
    lang: string | undefined,
    path: string,
  ): void {
    if (outcome.kind === 'refused') return this.message(404, 'notFound', req, reply, lang, path);
    reply.header('retry-after', '2');
    this.message(503, 'busy', req, reply, lang, path);
  }

  /**
   * The headers of every page: a CSP that runs only this answer's inline script and style (its
   * nonce), forms posting only here (the merchant's origins are there for the redirect that may
   * follow a submit), never framed; never cached, no Referer (the link is a credential).
   */
  private secure(reply: FastifyReply, v?: { redirectUrls?: { success?: string; failure?: string } }): string {
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

  private read(orderId: string, linkHash: string): Promise<Outcome<CheckoutOrderView>> {
    const query: GetOrderForCheckoutQuery = { orderId, linkHash };
    return this.ask<CheckoutOrderView>(Topics.ordersCommands, orderId, OrderCommandTypes.getForCheckout, query);
  }

  /**
   * The shop's card methods that take this currency and amount, each with its brands; the
   * default brands of ARCHITECTURE.md section 8 when the shop configured none (docs/decisions.md 127).
   */
  private async methodsFor(v: CheckoutOrderView): Promise<PageMethod[]> {
    const cached = this.methodsCache.get(v.shopId);
    let list = cached && Date.now() - cached.at < cached.ttl ? cached.methods : undefined;
    if (!list) {
      const answer = await this.ask<MethodListView>(Topics.methodsQueries, v.shopId, MethodQueryTypes.paymentList, {
        shopId: v.shopId,
      });
      const all = answer.kind === 'ok' ? answer.value.methods : [];
      list = all
        .filter(
          (m) =>
            m.enabled &&
            ((m.dataEntryMode === 'card_form' && (m.cardBrands?.length ?? 0) > 0) ||
              (m.dataEntryMode === 'instruction' && m.provider === 'sandbox')),
        )
        .map((m) => ({
          code: m.code,
          kind: m.dataEntryMode === 'instruction' ? 'app' : 'card',
          brands: (m.cardBrands ?? []) as CardBrand[],
          currencies: m.currencies,
        })) as PageMethod[];
      // No answer: the default card method for a few seconds, then the methods service is asked again.
      const ttl = answer.kind === 'ok' ? METHODS_TTL_MS : METHODS_DOWN_TTL_MS;
      this.methodsCache.set(v.shopId, { at: Date.now(), ttl, methods: list });
    }
    const amount = new Decimal(v.amount);
    const fitting = list.filter((m) => {
      const c = (m as PageMethod & { currencies?: MethodListView['methods'][number]['currencies'] }).currencies?.find(
        (x) => x.currency === v.currency,
      );
      return (
        !!c &&
        (c.minAmount === undefined || amount.greaterThanOrEqualTo(c.minAmount)) &&
        (c.maxAmount === undefined || amount.lessThanOrEqualTo(c.maxAmount))
      );
    });
    const cards = fitting.filter((m) => m.kind === 'card');
    const apps = fitting.filter((m) => m.kind === 'app');
    return [
      // The default card method only for a shop with no card method at all (decision 189): a shop
      // whose card methods do not take this currency or amount gets none.
      ...(cards.length > 0 || list.some((m) => m.kind === 'card')
        ? cards
        : [{ code: 'card', kind: 'card' as const, brands: DEFAULT_PAGE_CARD_BRANDS }]),
      ...apps,
    ];
  }

  @Get('payout/:token')
  async payoutPage(
    @Param('token') token: string,
    @Query('lang') lang: string | undefined,
    @Query('method') method: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const link = this.admit(token, req, reply, lang, 'payout');
    if (!link) return;
    const found = await this.payoutViews.get(link.linkHash, () => this.readPayout(link.id, link.linkHash));
    if (found.kind !== 'ok') return this.notFoundOrDown(found, req, reply, lang, link.path);
    await this.showPayout(found.value, req, reply, lang, link.path, { method: method?.slice(0, 64) });
  }

  /**
   * The recipient's one submission: the chosen method must be one the shop offers for this
   * amount (else 1-03-02, nothing sent), the fields those /payouts/fields requires, a card
   * number valid (Luhn, the method's BINs); the card goes to the vault here, only its token on.
   */
  @Post('payout/:token')
  async payoutSubmit(
    @Param('token') token: string,
    @Body() body: Record<string, unknown> | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const form = (body ?? {}) as Record<string, unknown>;
    const text = (k: string) => (typeof form[k] === 'string' ? (form[k] as string).trim().slice(0, 128) : '');
    const lang = text('lang') || undefined;
    const link = this.admit(token, req, reply, lang, 'payout');
    if (!link) return;
    const found = await this.readPayout(link.id, link.linkHash);
    if (found.kind !== 'ok') return this.notFoundOrDown(found, req, reply, lang, link.path);
    const v = found.value;
    if (v.linkStatus !== 'live') return this.showPayout(v, req, reply, lang, link.path, { afterSubmit: true });
    const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
    const t = CATALOGUE[locale];
    const methods = await this.payoutMethodsFor(v);
    const chosen = methods.find((m) => m.code === text('method'));
    const resolved = chosen ? await this.resolvePayoutMethod(v, chosen.code) : undefined;
    if (!chosen || !resolved) {
      // A method the shop does not offer (or no longer for this amount): 1-03-02, nothing sent.
      return this.renderPayout(v, reply, 422, { locale, path: link.path, methods, alert: t.payoutNoMethod });
    }
    const fields = pageFields(resolved.fields);
    const errors: Record<string, string> = {};
    const payee: Record<string, string> = {};
    const values: Record<string, string> = {};
    for (const f of fields) {
      const value = text(f.name);
      if (value === '') {
        if (f.required) errors[f.name] = t.errRequired;
        continue;
      }
      if (f.format === 'pan') {
        const card = checkCardNumber(value, chosen.brands);
        if (card.kind === 'invalid')
          errors[f.name] = { format: t.errFormat, brand: t.errBrand, luhn: t.errLuhn }[card.reason].replace(
            '{brands}',
            brandList(chosen.brands),
          );
        else payee[f.name] = card.pan;
        continue;
      }
      payee[f.name] = value;
      // Shown again on an error, unless it carries a card number (typed into the wrong field).
      values[f.name] = noCardIn(value);
    }
    for (const e of checkPayee(resolved.fields, payee)) {
      const name = e.path.startsWith('payee.') ? e.path.slice('payee.'.length) : e.path;
      if (!errors[name] && fields.some((f) => f.name === name))
        errors[name] = e.message === NO_CARD_NUMBER ? t.errCardInField : t.errField;
    }
    if (Object.keys(errors).length > 0) {
      // Card numbers are never echoed back, neither from the card field nor from any other: the
      // recipient types them again, told why a field was emptied (decision 258).
      for (const [name, shown] of Object.entries(values))
        if (shown !== payee[name] && !errors[name]) errors[name] = t.errCardInField;
      return this.renderPayout(v, reply, 400, { locale, path: link.path, methods, chosen, fields, errors, values });
    }
    const cards: Record<string, CardRef> = {};
    const plain: Record<string, string> = {};
    for (const f of fields) {
      if (payee[f.name] === undefined) continue;
      if (f.format !== 'pan') {
        plain[f.name] = payee[f.name];
        continue;
      }
      const { token: cardToken, bin, last4, masked } = await this.vault.tokenize(payee[f.name]);
      cards[f.name] = { token: cardToken, bin, last4, masked };
    }
    const command: SubmitPayoutDetailsCommand = {
      payoutId: link.id,
      linkHash: link.linkHash,
      method: chosen.code,
      provider: resolved.method.provider,
      instrumentType: resolved.method.instrumentType as SubmitPayoutDetailsCommand['instrumentType'],
      payee: plain,
      ...(Object.keys(cards).length > 0 ? { payeeCards: cards } : {}),
    };
    const sent = await this.payoutViews.changing(link.linkHash, () =>
      this.ask<CheckoutPayoutView>(Topics.payoutsCommands, link.id, PayoutCommandTypes.submitDetails, command),
    );
    if (sent.kind === 'ok') {
      void reply.status(303).header('location', `${link.path}?lang=${locale}`).send();
      return;
    }
    if (sent.kind === 'refused' && sent.reply.error.code === 'conflict') {
      const again = await this.readPayout(link.id, link.linkHash);
      if (again.kind === 'ok') return this.showPayout(again.value, req, reply, lang, link.path, { afterSubmit: true });
    }
    return this.notFoundOrDown(sent, req, reply, lang, link.path);
  }

  /** The page for where the payout and its link are. */
  private async showPayout(
    v: CheckoutPayoutView,
    req: FastifyRequest,
    reply: FastifyReply,
    lang: string | undefined,
    path: string,
    o: { afterSubmit?: boolean; method?: string } = {},
  ): Promise<void> {
    const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
    const final = PAYOUT_SUCCESS.has(v.status) ? 'completed' : FAILURE.has(v.status) ? 'failed' : undefined;
    const back = final === 'completed' ? v.redirectUrls?.success : final ? v.redirectUrls?.failure : undefined;
    if (v.linkStatus === 'expired' || (v.linkStatus === 'closed' && v.statusCode === PAYOUT_LINK_EXPIRED))
      return this.payoutMessage(410, 'expired', reply, locale, path, v, v.redirectUrls?.failure);
    if (v.linkStatus === 'live') {
      const methods = await this.payoutMethodsFor(v);
      const chosen = methods.find((m) => m.code === o.method) ?? methods.find((m) => m.code === v.method) ?? methods[0];
      const resolved = chosen ? await this.resolvePayoutMethod(v, chosen.code) : undefined;
      return this.renderPayout(v, reply, 200, {
        locale,
        path,
        methods,
        ...(chosen && resolved ? { chosen, fields: pageFields(resolved.fields) } : {}),
        ...(chosen && !resolved ? { alert: CATALOGUE[locale].payoutNoMethod } : {}),
      });
    }
    // A second submission (another tab, a replay) changes nothing, whatever became of the first.
    if (o.afterSubmit) return this.payoutMessage(409, 'used', reply, locale, path, v, back);
    if (final && back) {
      const url = new URL(back);
      url.searchParams.set('payoutId', v.payoutId);
      url.searchParams.set('status', v.status);
      void reply.status(303).header('location', url.toString()).send();
      return;
    }
    this.payoutMessage(200, final ?? 'processing', reply, locale, path, v);
  }

  private renderPayout(
    v: CheckoutPayoutView,
    reply: FastifyReply,
    status: number,
    o: {
      locale: PageLocale;
      path: string;
      methods: PayoutPageMethod[];
      chosen?: PayoutPageMethod;
      fields?: PayoutPageField[];
      errors?: Record<string, string>;
      values?: Record<string, string>;
      alert?: string;
    },
  ): void {
    const nonce = this.secure(reply, v);
    void reply
      .status(status)
      .type('text/html; charset=utf-8')
      .send(payoutPage(v, { ...o, nonce, fields: o.fields ?? [], now: new Date() }));
  }

  private payoutMessage(
    status: number,
    kind: PayoutMessageKind,
    reply: FastifyReply,
    locale: PageLocale,
    path: string,
    v: CheckoutPayoutView,
    back?: string,
  ): void {
    const nonce = this.secure(reply, v);
    let backUrl: string | undefined;
    if (back) {
      const url = new URL(back);
      url.searchParams.set('payoutId', v.payoutId);
      url.searchParams.set('status', v.status);
      backUrl = url.toString();
    }
    void reply
      .status(status)
      .type('text/html; charset=utf-8')
      .send(payoutMessagePage(kind, { locale, nonce, path, v, ...(backUrl ? { back: backUrl } : {}) }));
  }

  private readPayout(payoutId: string, linkHash: string): Promise<Outcome<CheckoutPayoutView>> {
    const query: GetPayoutForCheckoutQuery = { payoutId, linkHash };
    return this.ask<CheckoutPayoutView>(Topics.payoutsCommands, payoutId, PayoutCommandTypes.getForCheckout, query);
  }

  /** The shop's enabled payout methods that offer the payout's currency for its amount. */
  private async payoutMethodsFor(v: CheckoutPayoutView): Promise<PayoutPageMethod[]> {
    const answer = await this.ask<MethodListView>(Topics.methodsQueries, v.shopId, MethodQueryTypes.payoutList, {
      shopId: v.shopId,
    });
    if (answer.kind !== 'ok') return [];
    const amount = new Decimal(v.amount);
    return answer.value.methods
      .filter(
        (m) =>
          m.enabled &&
          m.currencies.some(
            (c) =>
              c.currency === v.currency &&
              (c.tokenStandard ?? undefined) === v.tokenStandard &&
              (c.minAmount === undefined || amount.greaterThanOrEqualTo(c.minAmount)) &&
              (c.maxAmount === undefined || amount.lessThanOrEqualTo(c.maxAmount)),
          ),
      )
      .map((m) => ({ code: m.code, instrumentType: m.instrumentType, brands: (m.cardBrands ?? []) as CardBrand[] }));
  }

  /** What methods says of a method for this payout (provider, fields), or undefined when it refuses it. */
  private async resolvePayoutMethod(v: CheckoutPayoutView, method: string): Promise<ResolvedPayoutMethod | undefined> {
    const query: ResolvePayoutMethodQuery = {
      shopId: v.shopId,
      method,
      currency: v.currency,
      ...(v.tokenStandard ? { tokenStandard: v.tokenStandard } : {}),
      amount: v.amount,
    };
    const answer = await this.ask<ResolvedPayoutMethod>(
      Topics.methodsQueries,
      v.shopId,
      MethodQueryTypes.payoutResolve,
      query,
    );
    return answer.kind === 'ok' ? answer.value : undefined;
  }

  private async ask<T>(topic: string, key: string, type: string, payload: unknown): Promise<Outcome<T>> {
    try {
      const reply = await this.client.request<T>(topic, key, type, payload);
      return reply.ok ? { kind: 'ok', value: reply.result } : { kind: 'refused', reply };
    } catch (err) {
      this.logger.warn(`${type} was not answered: ${(err as Error).message}`);
      return { kind: 'down' };
    }
  }
}

/**
 * A form value to show again, or nothing when it carries a card number: looked for inside longer
 * numbers too (decision 258), since echoing less than the input rule refuses is the safe side.
 */
export function noCardIn(value: string): string {
  return cardNumbersIn(value, { insideLongerNumbers: true }).length > 0 ? '' : value;
}
