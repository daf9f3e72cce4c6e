import { Body, Controller, Get, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ClickSimulatorController } from './click-simulator.controller';

function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const CSS = `body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#00a1e4;color:#fff}
main{max-width:24rem;margin:0 auto;padding:2rem 1rem}h1{font-size:1.25rem}.amount{font-size:2rem;font-weight:700}
button,a.btn{display:block;width:100%;box-sizing:border-box;text-align:center;font-size:1.1rem;padding:.8rem;border:0;border-radius:8px;margin-top:1rem;cursor:pointer;text-decoration:none}
.ok{background:#fff;color:#00618a}.no{background:#00618a;color:#fff}button:focus,a:focus{outline:3px solid #ffd54f}`;

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Click (sandbox)</title><style>${CSS}</style></head><body><main><h1>Click <small>(sandbox)</small></h1>${body}</main></body></html>`;
}

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
    const back =
      q?.return_url && /^https?:\/\//.test(q.return_url)
        ? `<a class="btn no" id="back" href="${esc(q.return_url)}">Back to the shop</a>`
        : '';
    this.send(reply, `<p role="status" id="outcome">${ok ? 'Paid.' : `Not paid: ${esc(note)}.`}</p>${back}`);
  }

  private send(reply: FastifyReply, body: string): void {
    void reply.header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    void reply.status(200).type('text/html; charset=utf-8').send(page(body));
  }
}
