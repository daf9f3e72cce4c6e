import { Body, Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodePaymeCheckout, fromTiyin, PaymeCheckoutParams, PaymeStep, PaymeTerms } from '@payments/providers/payme';
import { backToShop, esc, orderSummary, outcomeLine, sendSimulatorPage, SimulatorLook } from '../simulator-page';
import { PaymeSimulatorController } from './payme-simulator.controller';

/** Payme's teal, dark enough for white text. */
const PAYME: SimulatorLook = { name: 'Payme', background: '#00757f', strong: '#004d54' };

type Action = 'pay' | 'cancel' | 'refund';
const DONE: Record<Action, { yes: string; no: string }> = {
  pay: { yes: 'Paid.', no: 'Not paid' },
  cancel: { yes: 'Cancelled.', no: 'Not cancelled' },
  refund: { yes: 'Refunded.', no: 'Not refunded' },
};

/** Why a step did not go through, as the payer reads it: Payme's English message and code. */
function refusal(s: PaymeStep | undefined): string {
  const error = s?.answer?.error as { code?: unknown; message?: { en?: unknown } } | undefined;
  if (!s?.answer) return `Payme could not read the shop's answer (HTTP ${s?.httpStatus ?? 'none'})`;
  const en = typeof error?.message?.en === 'string' ? error.message.en : 'error';
  return `${en} (${String(error?.code)})`;
}

/** Each request and its answer, for the developer who follows a local payment. */
function stepsList(steps: PaymeStep[], open: boolean): string {
  const line = (s: PaymeStep) => {
    const result = s.answer?.result as Record<string, unknown> | undefined;
    const outcome = !result ? refusal(s) : result.allow === true ? 'allowed' : `state ${String(result.state)}`;
    return `<li><code>${esc(s.method)}</code> → ${esc(outcome)}</li>`;
  };
  return steps.length
    ? `<details${open ? ' open' : ''}><summary>What Payme sent the shop</summary><ol>${steps.map(line).join('')}</ol></details>`
    : '';
}

/**
 * What https://checkout.paycom.uz/<base64> is to a payer, played by the sandbox so that the hosted
 * page's "Pay with Payme" works locally (checkout's PAYME_CHECKOUT_URL = <sandbox>/payme/checkout):
 * it decodes the link, the payer pays or cancels, and the sandbox plays Payme's JSON-RPC against
 * callbacks-ingest (Check, Create, Perform; Cancel before perform, or after it, a refund) and shows
 * the outcome, our error answers included, with a way back to the shop. A test double: not in the
 * sandbox's OpenAPI document.
 */
@ApiExcludeController()
@Controller('payme/checkout')
export class PaymeCheckoutController {
  constructor(private readonly payme: PaymeSimulatorController) {}

  @Get('*')
  show(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    const link = this.link(req, reply);
    if (!link) return;
    this.send(
      reply,
      `<p>Payment of order ${esc(link.params.orderId.slice(0, 8))}…</p><p class="amount">${esc(fromTiyin(link.params.amount))} UZS</p>
<form method="post" action="${esc(link.path)}"><button class="ok" id="pay" type="submit" name="action" value="pay">Pay</button>
<button class="no" id="cancel" type="submit" name="action" value="cancel">Cancel</button></form>${backToShop(link.params.returnUrl)}`,
    );
  }

  @Post('*')
  async act(
    @Req() req: FastifyRequest,
    @Body() form: { action?: string; transaction?: string } | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const link = this.link(req, reply);
    if (!link) return;
    const action = form?.action;
    if (action !== 'pay' && action !== 'cancel' && action !== 'refund')
      return this.send(reply, outcomeLine(false, 'Choose Pay or Cancel.'), 400);
    if (action === 'refund' && !/^[0-9a-f]{24}$/.test(form?.transaction ?? ''))
      return this.send(reply, outcomeLine(false, 'No transaction to refund.'), 400);
    const terms = action === 'refund' ? { ...link.terms, transactionId: form!.transaction! } : link.terms;
    const steps = await this.payme.run(action, terms);
    const last = steps[steps.length - 1];
    const ok = steps.length === (action === 'refund' ? 1 : 3) && !!last?.answer && 'result' in last.answer;
    const outcome = outcomeLine(ok, ok ? DONE[action].yes : `${DONE[action].no}: ${refusal(last)}.`);
    const transaction =
      ok && action === 'pay' ? String((last.answer!.result as { transaction?: unknown }).transaction) : '';
    const refund = transaction
      ? `<form method="post" action="${esc(link.path)}"><input type="hidden" name="transaction" value="${esc(transaction)}">
<button class="no" id="refund" type="submit" name="action" value="refund">Cancel the payment (refund)</button></form>`
      : '';
    // After a cancel or a refusal the payer may try again from the start, as in Payme's app.
    const again =
      ok && action !== 'cancel' ? '' : `<a class="btn ok" id="again" href="${esc(link.path)}">Back to the payment</a>`;
    this.send(
      reply,
      `${outcome}${orderSummary(link.params.orderId, fromTiyin(link.params.amount))}${refund}${again}${backToShop(link.params.returnUrl)}${stepsList(steps, !ok)}`,
    );
  }

  /** The link's parameters and the cashbox's key, or a page saying why there is nothing to pay. */
  private link(
    req: FastifyRequest,
    reply: FastifyReply,
  ): { path: string; params: PaymeCheckoutParams; terms: PaymeTerms } | null {
    const encoded = (req.params as Record<string, string | undefined>)['*'] ?? '';
    const decoded = decodePaymeCheckout(encoded);
    if (!decoded.ok) {
      this.send(reply, outcomeLine(false, `This Payme link cannot be paid: ${decoded.error}.`), 400);
      return null;
    }
    const p = decoded.value;
    try {
      const terms = this.payme.terms({ merchantId: p.merchantId, orderId: p.orderId, amount: p.amount });
      return { path: `/payme/checkout/${encoded}`, params: p, terms };
    } catch {
      this.send(
        reply,
        outcomeLine(false, `Payme does not know the cashbox ${p.merchantId} (not in the sandbox's PAYME_KEYS).`),
        404,
      );
      return null;
    }
  }

  private send(reply: FastifyReply, body: string, status = 200): void {
    sendSimulatorPage(reply, PAYME, body, status);
  }
}
