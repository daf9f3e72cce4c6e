import { Body, Controller, Get, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { backToShop, esc, orderSummary, outcomeLine, sendSimulatorPage, SimulatorLook } from '../simulator-page';
import { ClickSimulatorController } from './click-simulator.controller';

/** Click's blue. */
const CLICK: SimulatorLook = { name: 'Click', background: '#00a1e4', strong: '#00618a' };

interface PayQuery {
  service_id?: string;
  merchant_id?: string;
  amount?: string;
  transaction_param?: string;
  return_url?: string;
}

/**
 * What https://my.click.uz/services/pay is to a payer, played by the sandbox so that the hosted
 * page's "Pay with Click" works locally (checkout's CLICK_PAY_URL): the payer confirms, the
 * sandbox plays Click's Prepare and Complete against callbacks-ingest, and shows the outcome with
 * a way back to the shop. A test double: not in the sandbox's OpenAPI document.
 */
@ApiExcludeController()
@Controller('services/pay')
export class ClickAppController {
  constructor(private readonly click: ClickSimulatorController) {}

  @Get()
  show(@Query() q: PayQuery, @Res() reply: FastifyReply): void {
    const hidden = (['service_id', 'merchant_id', 'amount', 'transaction_param', 'return_url'] as const)
      .map((k) => `<input type="hidden" name="${k}" value="${esc(q[k] ?? '')}">`)
      .join('');
    this.send(
      reply,
      `<p>Payment of order ${esc((q.transaction_param ?? '').slice(0, 8))}…</p><p class="amount">${esc(q.amount ?? '')} UZS</p>
<form method="post" action="/services/pay">${hidden}<button class="ok" id="confirm" type="submit">Pay</button></form>`,
    );
  }

  @Post()
  async pay(@Body() q: PayQuery | undefined, @Res() reply: FastifyReply): Promise<void> {
    const terms = { orderId: q?.transaction_param ?? '', amount: q?.amount ?? '', serviceId: q?.service_id ?? '' };
    const steps = await this.click.run('pay', terms).catch(() => []);
    const last = steps[steps.length - 1]?.answer;
    const ok = steps.length === 2 && last?.error === 0;
    const note = typeof last?.error_note === 'string' ? last.error_note : 'Click could not reach the shop';
    const outcome = outcomeLine(ok, ok ? 'Paid.' : `Not paid: ${note}.`);
    this.send(reply, `${outcome}${orderSummary(terms.orderId, terms.amount)}${backToShop(q?.return_url)}`);
  }

  private send(reply: FastifyReply, body: string): void {
    sendSimulatorPage(reply, CLICK, body);
  }
}
