import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  createOrderCommand, Envelope, errorReply, okReply, OrderCommandTypes, OrderView, parsePayload, Reply,
} from '@payments/contracts';
import { Outbox } from '@payments/messaging';
import { findCurrency, formatAmount, isCrypto } from '@payments/money';
import { OrderEntity } from '../order.entity';
import { OrderRepository } from '../order.repository';
import { toOrderView } from '../order-view';
import { publishStatusChange } from '../orders-outbox';
import { CLOCK, Clock, ORDERS_OUTBOX } from '../tokens';

function isCryptoCode(code: string): boolean {
  const found = findCurrency(code);
  return found.kind === 'found' && isCrypto(found.currency);
}

@Controller()
export class CreateOrderHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    @Inject(ORDERS_OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Creates the order in `registered` with its event, in one transaction. Idempotent by order id:
   * the gateway resends the same id when a merchant retries with the same Idempotency-Key, and
   * gets the existing order back instead of a second one.
   */
  @MessagePattern(OrderCommandTypes.create)
  async create(@Payload() message: Envelope): Promise<Reply<OrderView>> {
    const cmd = parsePayload(createOrderCommand, message.payload, message.type);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const order = m.getRepository(OrderEntity).create({
        id: cmd.orderId,
        shopId: cmd.shopId,
        merchantOrderId: cmd.merchantOrderId,
        status: 'registered',
        statusCode: '1-01-01',
        amount: formatAmount(cmd.cost.amount),
        originalAmount: formatAmount(cmd.cost.amount),
        reportedAmount: null,
        currency: cmd.cost.currency,
        tokenStandard: cmd.cost.tokenStandard ?? null,
        needActionReason: null,
        description: cmd.description ?? null,
        payer: cmd.payer ?? null,
        instrumentType: cmd.instrumentType ?? null,
        paymentSettings: cmd.paymentSettings ?? null,
        recipient: cmd.recipient ?? null,
        isCrypto: isCryptoCode(cmd.cost.currency),
        sequence: 1,
        createdAt: now,
        updatedAt: now,
      });
      if (await this.orders.insertIfAbsent(m, order)) {
        await publishStatusChange(this.outbox, m, order, null, now, message);
        return okReply(toOrderView(order, []));
      }
      const same = await this.orders.findOfShop(cmd.orderId, cmd.shopId, m);
      if (same) return okReply(toOrderView(same, await this.orders.payments(same.id, m)));
      const taken = await this.orders.findByMerchantOrderId(m, cmd.shopId, cmd.merchantOrderId);
      if (taken) {
        return errorReply({
          code: 'conflict',
          detail: `order.merchantOrderId "${cmd.merchantOrderId}" is already used by order ${taken.id} of this shop`,
          errors: [{ path: 'order.merchantOrderId', message: 'is already used by another order of this shop' }],
          extensions: { orderId: taken.id },
        });
      }
      // The id belongs to another shop's order: ids are random UUIDs, so this is a bug upstream.
      throw new Error(`order id ${cmd.orderId} collides with an order of another shop`);
    });
  }
}
