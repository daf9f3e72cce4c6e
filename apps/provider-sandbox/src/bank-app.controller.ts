import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PaymentRecord, SandboxPayments } from './sandbox-payments';

function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const CSS = `body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#0b3d2e;color:#fff}
main{max-width:24rem;margin:0 auto;padding:2rem 1rem}h1{font-size:1.25rem}.amount{font-size:2rem;font-weight:700}
form{display:flex;gap:.75rem;margin-top:1.5rem}button{flex:1;font-size:1.1rem;padding:.8rem;border:0;border-radius:8px;cursor:pointer}
.ok{background:#2ecc71;color:#06281c}.no{background:#fff;color:#0b3d2e}button:focus{outline:3px solid #ffd54f}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>`;
}

/**
 * The page the universal link of an app payment opens (ARCHITECTURE.md section 8): it plays the
 * payer's bank app. Approve or decline, and the sandbox sends its signed callback as for a card.
 * A test double: it is not in the sandbox's OpenAPI document.
 */
@ApiExcludeController()
@Controller('app/pay')
export class BankAppController {
  constructor(private readonly payments: SandboxPayments) {}

  @Get(':paymentId')
  show(@Param('paymentId') paymentId: string, @Query('ref') ref: string | undefined, @Res() reply: FastifyReply): void {
    const record = this.payments.find('payment', ref ?? '', paymentId);
    this.send(reply, record, paymentId, ref ?? '');
  }

  @Post(':paymentId')
  decide(
    @Param('paymentId') paymentId: string,
    @Body() body: { ref?: unknown; decision?: unknown } | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const ref = typeof body?.ref === 'string' ? body.ref : '';
    const record = this.payments.decide(ref, paymentId, body?.decision === 'approve');
    this.send(reply, record, paymentId, ref);
  }

  private send(reply: FastifyReply, record: PaymentRecord | undefined, paymentId: string, ref: string): void {
    // The page's own inline style, and its form posting here: nothing else.
    void reply.header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    if (!record?.app) {
      void reply
        .status(404)
        .type('text/html; charset=utf-8')
        .send(page('SandboxPay', '<h1>SandboxPay</h1><p>No such payment.</p>'));
      return;
    }
    const head = `<h1>SandboxPay</h1><p>Pay ${esc(record.reference.slice(0, 8))}…</p><p class="amount">${esc(record.amount)} ${esc(record.currency)}</p>`;
    const body = record.decision
      ? `${head}<p role="status" id="decision">${record.decision === 'approved' ? 'Approved. You can return to the shop.' : 'Declined. You can return to the shop.'}</p>`
      : `${head}<form method="post" action="/app/pay/${encodeURIComponent(paymentId)}"><input type="hidden" name="ref" value="${esc(ref)}">
<button class="ok" id="approve" name="decision" value="approve">Approve</button><button class="no" id="decline" name="decision" value="decline">Decline</button></form>`;
    void reply.status(200).type('text/html; charset=utf-8').send(page('SandboxPay', body));
  }
}
