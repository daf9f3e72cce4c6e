import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { sign, SIGNATURE_HEADER } from '@payments/providers/sandbox';
import { SANDBOX_CONFIG, SandboxConfig } from './config';

export interface SandboxCallbackBody {
  eventId: string;
  kind: 'payment' | 'payout' | 'p2p';
  reference: string;
  paymentId?: string;
  status: 'success' | 'failed' | 'pending';
  amount: string;
  currency: string;
  tokenStandard?: string;
  reason?: string;
}

/** Signs and posts callbacks to callbacks-ingest, as a real acquirer would. */
@Injectable()
export class CallbackSender {
  private readonly logger = new Logger('CallbackSender');

  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  async send(
    body: Omit<SandboxCallbackBody, 'eventId'> & { eventId?: string },
  ): Promise<{ status: number; body: string }> {
    const payload: SandboxCallbackBody = { ...body, eventId: body.eventId ?? randomUUID() };
    const raw = JSON.stringify(payload);
    const response = await fetch(this.config.callbacksUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: sign(this.config.secret, raw, Math.floor(Date.now() / 1000)),
      },
      body: raw,
    });
    const text = await response.text();
    if (response.status !== 200)
      this.logger.warn(
        `callback ${payload.eventId} for ${payload.reference} answered ${response.status}: ${text.slice(0, 200)}`,
      );
    return { status: response.status, body: text };
  }
}
