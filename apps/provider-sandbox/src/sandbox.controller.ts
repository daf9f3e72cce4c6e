import { Body, Controller, HttpCode, Inject, Logger, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsIn, IsDefined, IsOptional, IsString, Length, Matches } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { CallbackSender } from './callback-sender';
import { SANDBOX_CONFIG, SandboxConfig } from './config';

const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export class PaymentRequestDto {
  @IsDefined() @IsString() @Length(1, 128) reference: string;
  @IsDefined() @Matches(DECIMAL) amount: string;
  @IsDefined() @IsString() @Length(1, 32) currency: string;
  @IsOptional() @IsString() tokenStandard?: string;
  @IsOptional() @IsIn(['payment', 'payout', 'p2p']) kind?: 'payment' | 'payout' | 'p2p';
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
  private readonly logger = new Logger('Sandbox');

  constructor(private readonly sender: CallbackSender, @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  /** Accepts a payment and answers it later with a signed `success` callback, as an acquirer does. */
  @Post('payments')
  @HttpCode(202)
  @ApiOperation({ summary: 'Start a payment (called by our services)' })
  pay(@Body() body: PaymentRequestDto): { paymentId: string; status: 'pending' } {
    const paymentId = `sbx_${randomUUID()}`;
    setTimeout(() => {
      this.sender
        .send({ kind: body.kind ?? 'payment', reference: body.reference, paymentId, status: 'success', amount: body.amount, currency: body.currency, tokenStandard: body.tokenStandard })
        .catch((err: Error) => this.logger.warn(`callback for ${body.reference} not delivered: ${err.message}`));
    }, this.config.callbackDelayMs).unref();
    return { paymentId, status: 'pending' };
  }

  /** Sends one signed callback now, with whatever content the caller asks for (local runs, tests). */
  @Post('simulate/callback')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a signed callback to callbacks-ingest now' })
  async simulate(@Body() body: SimulateCallbackDto): Promise<{ delivered: boolean; responseStatus: number; responseBody: string }> {
    const { status: responseStatus, body: responseBody } = await this.sender.send({ ...body, kind: body.kind ?? 'payment' });
    return { delivered: responseStatus === 200, responseStatus, responseBody };
  }
}
