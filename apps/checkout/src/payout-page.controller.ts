import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CardVault } from '@payments/card-vault';
import {
  CardRef,
  CheckoutPayoutView,
  PageLocale,
  PayoutCommandTypes,
  PayoutFieldSpec,
  SubmitPayoutDetailsCommand,
  commandTopic,
} from '@payments/contracts';
import { checkCardNumber, checkPayee, NO_CARD_NUMBER } from '@payments/methods-domain';
import { CARD_VAULT, CHECKOUT_CONFIG, CheckoutConfig } from './config';
import { CheckoutRequests } from './checkout-requests';
import { LiveViewCache } from './live-view-cache';
import { PageGate } from './page-gate';
import { noCardIn, secure, sendNotFoundOrDown, sendPage } from './page-replies';
import { brandList } from './pages/order-page';
import { CATALOGUE, pickLocale } from './pages/strings';
import {
  PayoutMessageKind,
  payoutMessagePage,
  payoutPage,
  PayoutPageField,
  PayoutPageMethod,
} from './pages/payout-page';

const PAYOUT_SUCCESS = new Set(['completed']);
const FAILURE = new Set(['failed', 'cancelled']);
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

/**
 * The hosted payout page (decisions 134, 135): the recipient chooses a method the shop offers
 * for the payout and types the payee fields it needs; card numbers go to the vault here, only
 * their tokens on.
 */
@Controller()
export class PayoutPageController {
  private readonly payoutViews: LiveViewCache<CheckoutPayoutView>;

  constructor(
    private readonly gate: PageGate,
    private readonly requests: CheckoutRequests,
    @Inject(CARD_VAULT) private readonly vault: CardVault,
    @Inject(CHECKOUT_CONFIG) config: CheckoutConfig,
  ) {
    this.payoutViews = new LiveViewCache<CheckoutPayoutView>({
      maxAgeMs: config.viewMaxAgeMs,
      refreshAfterMs: Math.floor(config.viewMaxAgeMs / 2),
      maxEntries: 10_000,
    });
  }

  @Get('payout/:token')
  async payoutPage(
    @Param('token') token: string,
    @Query('lang') lang: string | undefined,
    @Query('method') method: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const link = this.gate.admit(token, req, reply, lang, 'payout');
    if (!link) return;
    const found = await this.payoutViews.get(link.linkHash, () => this.requests.readPayout(link.id, link.linkHash));
    if (found.kind !== 'ok') return sendNotFoundOrDown(found, req, reply, lang, link.path);
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
    const link = this.gate.admit(token, req, reply, lang, 'payout');
    if (!link) return;
    const found = await this.requests.readPayout(link.id, link.linkHash);
    if (found.kind !== 'ok') return sendNotFoundOrDown(found, req, reply, lang, link.path);
    const v = found.value;
    if (v.linkStatus !== 'live') return this.showPayout(v, req, reply, lang, link.path, { afterSubmit: true });
    const locale = pickLocale(lang, v.locale, req.headers['accept-language']);
    const t = CATALOGUE[locale];
    const methods = await this.requests.payoutMethods(v);
    const chosen = methods.find((m) => m.code === text('method'));
    const resolved = chosen ? await this.requests.resolvePayoutMethod(v, chosen.code) : undefined;
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
      this.requests.ask<CheckoutPayoutView>(
        commandTopic('payouts', 'payer'),
        link.id,
        PayoutCommandTypes.submitDetails,
        command,
      ),
    );
    if (sent.kind === 'ok') {
      void reply.status(303).header('location', `${link.path}?lang=${locale}`).send();
      return;
    }
    if (sent.kind === 'refused' && sent.reply.error.code === 'conflict') {
      const again = await this.requests.readPayout(link.id, link.linkHash);
      if (again.kind === 'ok') return this.showPayout(again.value, req, reply, lang, link.path, { afterSubmit: true });
    }
    return sendNotFoundOrDown(sent, req, reply, lang, link.path);
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
      const methods = await this.requests.payoutMethods(v);
      const chosen = methods.find((m) => m.code === o.method) ?? methods.find((m) => m.code === v.method) ?? methods[0];
      const resolved = chosen ? await this.requests.resolvePayoutMethod(v, chosen.code) : undefined;
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
    const nonce = secure(reply, v);
    sendPage(reply, status, payoutPage(v, { ...o, nonce, fields: o.fields ?? [], now: new Date() }));
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
    const nonce = secure(reply, v);
    let backUrl: string | undefined;
    if (back) {
      const url = new URL(back);
      url.searchParams.set('payoutId', v.payoutId);
      url.searchParams.set('status', v.status);
      backUrl = url.toString();
    }
    sendPage(reply, status, payoutMessagePage(kind, { locale, nonce, path, v, ...(backUrl ? { back: backUrl } : {}) }));
  }
}
