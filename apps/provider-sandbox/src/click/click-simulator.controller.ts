import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsDefined, IsString, Length, Matches } from 'class-validator';
import {
  CLICK_SCENARIOS,
  ClickEndpoint,
  ClickScenarioName,
  ClickStep,
  playClickScenario,
} from '@payments/providers/click';
import { ProblemException } from '@payments/platform';
import { SANDBOX_CONFIG, SandboxConfig } from '../config';

export class ClickScenarioDto {
  @IsDefined() @IsString() @Length(1, 128) orderId: string;
  /** In sums, as Click writes it ("150000" or "150000.00"). */
  @IsDefined() @Matches(/^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/) amount: string;
  @IsDefined() @Matches(/^[0-9]{1,20}$/) serviceId: string;
}

/** Click's transaction ids: one sequence for the process (the app page and the API share it). */
let nextClickTransId = Date.now() * 1000;

/**
 * Click, played by the sandbox: each scenario sends the Prepare and Complete requests Click would,
 * signed with the service's SECRET_KEY, to callbacks-ingest, and answers what it answered
 * (libs/providers/click/src/simulator). Tests and people drive every rule of the protocol here.
 */
@ApiTags('click')
@Controller('click')
export class ClickSimulatorController {
  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  /** Plays a scenario for the "Click app" page (click-app.controller.ts) and for tests. */
  run(name: ClickScenarioName, terms: ClickScenarioDto): Promise<ClickStep[]> {
    const secretKey = this.config.clickSecretKeys[terms.serviceId];
    if (!secretKey)
      throw new ProblemException('validation', `the sandbox has no Click secret key for service ${terms.serviceId}`, [
        { path: 'serviceId', message: 'is not in CLICK_SECRET_KEYS' },
      ]);
    return playClickScenario(
      name,
      { orderId: terms.orderId, amount: terms.amount, serviceId: terms.serviceId, secretKey },
      (endpoint, form) => this.send(endpoint, form),
      () => String(++nextClickTransId),
      () => new Date(),
    );
  }

  @Post('scenarios/:name')
  @HttpCode(200)
  @ApiOperation({ summary: 'Play one Click scenario against callbacks-ingest; answers each request and its answer' })
  async play(@Param('name') name: string, @Body() body: ClickScenarioDto): Promise<{ steps: ClickStep[] }> {
    if (!Object.hasOwn(CLICK_SCENARIOS, name))
      throw new ProblemException(
        'notFound',
        `no Click scenario "${name.slice(0, 64)}"; there are ${Object.keys(CLICK_SCENARIOS).join(', ')}`,
      );
    return { steps: await this.run(name as ClickScenarioName, body) };
  }

  /** Posts one form as Click does and reads the JSON answer. */
  private async send(endpoint: ClickEndpoint, form: Record<string, string>): Promise<ClickStep> {
    const base = this.config.clickCallbacksUrl.replace(/\/+$/, '');
    const response = await fetch(`${base}/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
    });
    const text = await response.text();
    let answer: Record<string, unknown> | null = null;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      answer = null;
    }
    return { endpoint, form, httpStatus: response.status, answer };
  }
}
