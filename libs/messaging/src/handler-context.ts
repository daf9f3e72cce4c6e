import { BaseRpcContext } from '@nestjs/microservices';
import { IHeaders } from 'kafkajs';

/** What a handler receives besides the envelope. */
export class KafkaMessageContext extends BaseRpcContext<[string, number, string, IHeaders]> {
  get topic(): string {
    return this.args[0];
  }
  get partition(): number {
    return this.args[1];
  }
  get offset(): string {
    return this.args[2];
  }
  get headers(): IHeaders {
    return this.args[3];
  }
}

/** What a batch handler receives besides the envelopes: where they came from, one context per envelope. */
export class KafkaBatchContext extends BaseRpcContext<[string, number, KafkaMessageContext[]]> {
  get topic(): string {
    return this.args[0];
  }
  get partition(): number {
    return this.args[1];
  }
  get messages(): KafkaMessageContext[] {
    return this.args[2];
  }
}

/** The `extras` of a handler that takes a partition's batch: `@EventPattern(type, BATCH_HANDLER)`. */
export const BATCH_HANDLER = { batch: true } as const;

/**
 * Thrown by a batch handler when one message of the batch is at fault: the transport then treats
 * that message alone as failed (dead-letters it at once for a ContractViolation, otherwise counts
 * an attempt) and retries the rest of the batch without it. `cause` is what went wrong.
 */
export class BatchMessageFailure extends Error {
  constructor(
    readonly eventId: string,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'BatchMessageFailure';
  }
}
