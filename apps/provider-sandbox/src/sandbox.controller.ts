import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsDefined,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateBy,
} from 'class-validator';
import { isCardNumber } from '@payments/methods-domain';
import { ProblemException } from '@payments/platform';
import { ACQUIRER_PROFILE, AcquirerProfile, refusalOf } from './acquirers/acquirer-profile';
import { CallbackSender } from './callback-sender';
import { PaymentAnswer, PaymentKind, PaymentRecord, SandboxPayments } from './sandbox-payments';

const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const KINDS = ['payment', 'payout', 'p2p'] as const;

/** A map of roles to card numbers; the message never repeats a value. */
function IsCardNumberMap() {
  return ValidateBy({
    name: 'isCardNumberMap',
    validator: {
      validate: (v: unknown) => typeof v === 'object' && v !== null && Object.values(v).every(isCardNumber),
      defaultMessage: () => 'must map each role to a card number',
    },
  });
}

export class PaymentRequestDto {
  @IsDefined() @IsString() @Length(1, 128) reference: string;
  @IsDefined() @Matches(DECIMAL) amount: string;
  @IsDefined() @IsString() @Length(1, 32) currency: string;
  @IsOptional() @IsString() tokenStandard?: string;
  @IsOptional() @IsIn(KINDS) kind?: PaymentKind;
}

export class StartPaymentDto extends PaymentRequestDto {
  /** The caller's id of the attempt: a resend with the same reference and paymentId is the same payment. */
  @IsOptional() @IsString() @Length(1, 128) paymentId?: string;
  /**
   * Card numbers by role, as an acquirer receives them: checked for being card numbers and then
   * dropped. The sandbox neither stores nor logs them, nor echoes them in callbacks.
   */
  @IsOptional() @IsObject() @IsCardNumberMap() cards?: Record<string, string>;
  /** The payer approves or declines in the bank app (its page is /app/pay/{paymentId}): no callback before. */
  @IsOptional() @IsBoolean() app?: boolean;
}

export class SimulateCallbackDto extends PaymentRequestDto {
  @IsDefined() @IsIn(['success', 'failed', 'pending']) status: 'success' | 'failed' | 'pending';
  @IsOptional() @IsString() @Length(1, 128) paymentId?: string;
  @IsOptional() @IsString() @Length(1, 128) eventId?: string;
  @IsOptional() @IsString() reason?: string;
}

@ApiTags('sandbox')
@Controller()
export class SandboxController {
  constructor(
    private readonly sender: CallbackSender,
    private readonly payments: SandboxPayments,
    @Inject(ACQUIRER_PROFILE) private readonly profile: AcquirerProfile,
  ) {}

  /**
   * Accepts a payment and answers it later by signed callbacks, as an acquirer does; the cents of
   * the amount choose the scenario (README). Idempotent by (reference, paymentId).
   */
  @Post('payments')
  @HttpCode(202)
  @ApiOperation({ summary: "Start a payment (called by our services); the amount's cents choose the scenario" })
  async pay(@Body() body: StartPaymentDto): Promise<PaymentAnswer> {
    // Some BINs are refused before the payment is taken (decision 323): orders fails over.
    const refusal = refusalOf(this.profile, body);
    if (refusal)
      throw new ProblemException(
        refusal.status === 503 ? 'unavailable' : 'unprocessable',
        refusal.detail,
        undefined,
        refusal.statusCode ? { statusCode: refusal.statusCode } : {},
      );
    const request: StartPaymentDto = { ...body };
    delete request.cards; // never stored: the record below outlives the request
    const result = await this.payments.start({ ...request, kind: request.kind ?? 'payment' });
    switch (result.kind) {
      case 'answer':
        return result.answer;
      case 'conflict':
        throw new ProblemException('conflict', result.detail);
      case 'closing':
        throw new ProblemException('unavailable', 'The sandbox is shutting down; send the payment again.');
    }
  }

  /** What the sandbox received and sent for one payment (tests, local runs). */
  @Get('payments/:reference/:paymentId')
  @ApiOperation({ summary: 'Inspect one payment: requests received, callbacks sent' })
  find(
    @Param('reference') reference: string,
    @Param('paymentId') paymentId: string,
    @Query('kind') kind?: string,
  ): PaymentRecord {
    const found = this.payments.find(
      (KINDS as readonly string[]).includes(kind ?? '') ? (kind as PaymentKind) : 'payment',
      reference,
      paymentId,
    );
    if (!found) throw new ProblemException('notFound', `the sandbox has no payment ${paymentId} of ${reference}`);
    return found;
  }

  /** Sends one signed callback now, with whatever content the caller asks for (local runs, tests). */
  @Post('simulate/callback')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a signed callback to callbacks-ingest now' })
  async simulate(
    @Body() body: SimulateCallbackDto,
  ): Promise<{ delivered: boolean; responseStatus: number; responseBody: string }> {
    const { status: responseStatus, body: responseBody } = await this.sender.send({
      ...body,
      kind: body.kind ?? 'payment',
    });
    return { delivered: responseStatus === 200, responseStatus, responseBody };
  }
}
