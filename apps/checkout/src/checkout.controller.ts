import { Body, Controller, Get, Inject, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { CardVault } from '@payments/card-vault';
import { CheckoutOrderView, OrderCommandTypes, PayHostedCommand, commandTopic } from '@payments/contracts';
import { checkCardNumber, checkExpiry } from '@payments/methods-domain';
import { CARD_VAULT, CHECKOUT_CONFIG, CheckoutConfig } from './config';
import { CheckoutRequests } from './checkout-requests';
import { LiveViewCache } from './live-view-cache';
import { providerLinksFor } from './provider-links';
import { AdmittedLink, PageGate } from './page-gate';
import { noCardIn, returnUrl, secure, sendMessage, sendNotFoundOrDown, sendPage } from './page-replies';
import { appPage, brandList, FieldErrors, MessageKind, orderPage, PageMethod } from './pages/order-page';
import { CATALOGUE, pickLocale } from './pages/strings';

export { noCardIn, returnUrl } from './page-replies';

const SUCCESS = new Set(['completed', 'partially_refunded', 'refunded']);
const FAILURE = new Set(['failed', 'cancelled']);

/**
 * The hosted payment page (ARCHITECTURE.md section 8): public, no API key. The link's token is
 * the only credential; it is turned into the order id and the token's hash here and never sent
 * on. Every answer is server-rendered HTML with a CSP of its own nonce. The payout page is
 * payout-page.controller.ts; both pass the same gate (page-gate.ts) and ask the same services
 * (checkout-requests.ts).
 */
@Controller()
export class CheckoutController {
  private readonly logger = new Logger(CheckoutController.name);
  private readonly orderViews: LiveViewCache<CheckoutOrderView>;

  constructor(
    private readonly gate: PageGate,
    private readonly requests: CheckoutRequests,
    @Inject(CARD_VAULT) private readonly vault: CardVault,
    @Inject(CHECKOUT_CONFIG) private readonly config: CheckoutConfig,
  ) {
    this.orderViews = new LiveViewCache<CheckoutOrderView>({
      maxAgeMs: config.viewMaxAgeMs,
      refreshAfterMs: Math.floor(config.viewMaxAgeMs / 2),
      maxEntries: 10_000,
    });
  }

  @Get('pay/:token')
  async page(
    @Param('token') token: string,
    @Query('lang') lang: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const link = this.gate.admit(token, req, reply, lang);
    if (!link) return;
    const found = await this.orderViews.get(link.linkHash, () => this.requests.readOrder(link.id, link.linkHash));
    if (found.kind !== 'ok') return sendNotFoundOrDown(found, req, reply, lang, link.path);
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
    const link = this.gate.admit(token, req, reply, lang);
    if (!link) return;
    const found = await this.requests.readOrder(link.id, link.linkHash);
    if (found.kind !== 'ok') return sendNotFoundOrDown(found, req, reply, lang, link.path);
    const v = found.value;
    if (v.linkStatus !== 'live') return this.show(v, req, reply, lang, link.path, true);
    const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
    const t = CATALOGUE[locale];
    const methods = await this.requests.paymentMethods(v);
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
      const nonce = secure(reply, v);
      // The number is never echoed back: the payer types it again.
      sendPage(
        reply,
        400,
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
      return sendNotFoundOrDown({ kind: 'down' }, req, reply, lang, link.path);
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
    link: AdmittedLink,
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
    link: AdmittedLink,
    req: FastifyRequest,
    reply: FastifyReply,
    locale: string,
    lang: string | undefined,
  ): Promise<void> {
    const paid = await this.orderViews.changing(link.linkHash, () =>
      this.requests.ask<CheckoutOrderView>(
        commandTopic('orders', 'payer'),
        link.id,
        OrderCommandTypes.payHosted,
        command,
      ),
    );
    if (paid.kind === 'ok') {
      void reply.status(303).header('location', `${link.path}?lang=${locale}`).send();
      return;
    }
    if (paid.kind === 'refused' && paid.reply.error.code === 'conflict') {
      const again = await this.requests.readOrder(link.id, link.linkHash);
      if (again.kind === 'ok') return this.show(again.value, req, reply, lang, link.path, true);
    }
    return sendNotFoundOrDown(paid, req, reply, lang, link.path);
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
    if (expired) return sendMessage(410, 'expired', req, reply, lang, path, v, v.redirectUrls?.failure);
    if (v.linkStatus === 'live') {
      const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
      const methods = await this.requests.paymentMethods(v);
      if (methods.length === 0) return sendMessage(200, 'noMethod', req, reply, lang, path, v, v.redirectUrls?.failure);
      const nonce = secure(reply, v);
      sendPage(
        reply,
        200,
        orderPage(v, {
          locale,
          nonce,
          path,
          methods,
          now: new Date(),
          providers: providerLinksFor(v, this.config.providerUrls),
        }),
      );
      return;
    }
    if (afterSubmit && v.linkStatus === 'used' && !SUCCESS.has(v.status) && !FAILURE.has(v.status))
      return sendMessage(409, 'used', req, reply, lang, path, v);
    if (v.instructions && !SUCCESS.has(v.status) && !FAILURE.has(v.status)) {
      const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
      const qrSvg = await QRCode.toString(v.instructions.qr, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      const nonce = secure(reply, v);
      sendPage(reply, 200, appPage(v, { locale, nonce, path, qrSvg }));
      return;
    }
    // A submit after the order is final (a replay, a late tab) is a 409, not the way back.
    if (afterSubmit && (SUCCESS.has(v.status) || FAILURE.has(v.status)))
      return sendMessage(409, SUCCESS.has(v.status) ? 'used' : 'failed', req, reply, lang, path, v, back);
    if (back) {
      void reply.status(303).header('location', returnUrl(back, v)).send();
      return;
    }
    const kind: MessageKind = SUCCESS.has(v.status) ? 'paid' : FAILURE.has(v.status) ? 'failed' : 'processing';
    sendMessage(afterSubmit && kind !== 'processing' ? 409 : 200, kind, req, reply, lang, path, v);
  }
}
