import { Controller, Type } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Envelope, ProviderEventTypes, Reply } from '@payments/contracts';
import { CreateTransferHandler } from './create-transfer.handler';
import { GetTransferHandler } from './get-transfer.handler';
import { ProviderEventConsumer } from './provider-event.consumer';
import { ResolveTransferHandler } from './resolve-transfer.handler';
import type { TransferKindSpec } from './transfer-kind';

/**
 * The Kafka routes of one kind. Message patterns are decorator arguments, fixed when a class is
 * declared, so each registration declares its own class (two kinds may share one process in tests).
 */
export function transferController(kind: TransferKindSpec<any>): Type {
  @Controller()
  class TransferController {
    constructor(
      private readonly creating: CreateTransferHandler,
      private readonly getting: GetTransferHandler,
      private readonly resolving: ResolveTransferHandler,
      private readonly providerEvents: ProviderEventConsumer,
    ) {}

    @MessagePattern(kind.commandTypes.create)
    create(@Payload() message: Envelope): Promise<Reply<unknown>> {
      return this.creating.handle(message);
    }

    @MessagePattern(kind.commandTypes.get)
    get(@Payload() message: Envelope): Promise<Reply<unknown>> {
      return this.getting.handle(message);
    }

    @MessagePattern(kind.commandTypes.getByMerchantId)
    getByMerchantId(@Payload() message: Envelope): Promise<Reply<unknown>> {
      return this.getting.handleByMerchantId(message);
    }

    @MessagePattern(kind.commandTypes.listForOperator)
    listForOperator(@Payload() message: Envelope): Promise<Reply<unknown>> {
      return this.getting.handleListForOperator(message);
    }

    @MessagePattern(kind.commandTypes.resolve)
    resolve(@Payload() message: Envelope): Promise<Reply<unknown>> {
      return this.resolving.handle(message);
    }

    @EventPattern(ProviderEventTypes.event)
    apply(@Payload() message: Envelope): Promise<void> {
      return this.providerEvents.apply(message);
    }
  }
  return TransferController;
}
