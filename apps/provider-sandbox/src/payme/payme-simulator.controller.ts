import { randomBytes } from 'node:crypto';
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import {
  PAYME_SCENARIOS,
  PaymeScenarioName,
  PaymeStep,
  PaymeTerms,
  playPaymeScenario,
} from '@payments/providers/payme';
import { ProblemException } from '@payments/platform';
import { SANDBOX_CONFIG, SandboxConfig } from '../config';

/** How long the simulator waits for callbacks-ingest to answer one Payme call. */
const SEND_TIMEOUT_MS = 10_000;

export class PaymeScenarioDto {
  @IsDefined() @IsString() @Length(1, 128) orderId: string;
  /** In tiyin, as Payme sends it (150000.00 UZS is 15000000). */
  @IsDefined() @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) amount: number;
  @IsDefined() @Matches(/^[0-9a-f]{24}$/) merchantId: string;
  /** Payme's id of the performed transaction the refund scenario cancels. */
  @IsOptional() @Matches(/^[0-9A-Za-z_-]{1,64}$/) transactionId?: string;
}

/**
 * Payme, played by the sandbox: each scenario sends the JSON-RPC 2.0 requests Payme's Merchant API
 * would, with `Authorization: Basic Paycom:<cashbox key>`, amounts in tiyin and Payme's `time` in
 * ms, to callbacks-ingest's `/callbacks/payme/{merchantId}`, and answers what it answered
 * (libs/providers/payme/src/simulator). Tests and people drive every documented error here.
 */
@ApiTags('payme')
@Controller('payme')
export class PaymeSimulatorController {
  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  /** The cashbox's terms for an order, or a problem naming the merchant id the sandbox has no key for. */
  terms(t: PaymeScenarioDto): PaymeTerms {
    const merchantKey = this.config.paymeKeys[t.merchantId];
    if (!merchantKey)
      throw new ProblemException('validation', `the sandbox has no Payme key for merchant ${t.merchantId}`, [
        { path: 'merchantId', message: 'is not in PAYME_KEYS' },
      ]);
    return {
      merchantId: t.merchantId,
      merchantKey,
      orderId: t.orderId,
      amount: t.amount,
      transactionId: t.transactionId,
    };
  }

  /** Plays a scenario for the checkout page (payme-checkout.controller.ts) and for tests. */
  run(name: PaymeScenarioName, terms: PaymeTerms): Promise<PaymeStep[]> {
    return playPaymeScenario(
      name,
      terms,
      (method, body, authorization) => this.send(terms.merchantId, method, body, authorization),
      () => randomBytes(12).toString('hex'),
      () => Date.now(),
    );
  }

  @Post('scenarios/:name')
  @HttpCode(200)
  @ApiOperation({ summary: 'Play one Payme scenario against callbacks-ingest; answers each request and its answer' })
  async play(@Param('name') name: string, @Body() body: PaymeScenarioDto): Promise<{ steps: PaymeStep[] }> {
    if (!Object.hasOwn(PAYME_SCENARIOS, name))
      throw new ProblemException(
        'notFound',
        `no Payme scenario "${name.slice(0, 64)}"; there are ${Object.keys(PAYME_SCENARIOS).join(', ')}`,
      );
    if (name === 'refund' && !body.transactionId)
      throw new ProblemException('validation', 'the refund scenario cancels a performed transaction: name it', [
        { path: 'transactionId', message: 'is required for refund' },
      ]);
    return { steps: await this.run(name as PaymeScenarioName, this.terms(body)) };
  }

  /** Posts one JSON-RPC body as Payme does and reads the answer. */
  private async send(merchantId: string, method: string, body: string, authorization: string): Promise<PaymeStep> {
    const base = this.config.paymeCallbacksUrl.replace(/\/+$/, '');
    const response = await fetch(`${base}/${merchantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization },
      body,
      // A callbacks-ingest that never answers fails the page's step, not hangs it.
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    const text = await response.text();
    return { method, request: jsonOr(body), httpStatus: response.status, answer: objectOrNull(jsonOr(text)) };
  }
}

function jsonOr(text: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}

const objectOrNull = (v: Record<string, unknown> | string): Record<string, unknown> | null =>
  typeof v === 'string' ? null : v;
