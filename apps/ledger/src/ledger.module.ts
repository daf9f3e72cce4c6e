import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import {
  HealthReportingModule,
  Inbox,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  OutboxRelayServiceOptions,
  ReadThrough,
} from '@payments/messaging';
import { HealthModule, openServiceDatabase, serviceDataSourceOptions } from '@payments/platform';
import { LedgerRepository } from './books/ledger.repository';
import { OrderBooker } from './book-orders/order-booker';
import { OrderEventsConsumer } from './book-orders/order-events.consumer';
import { P2pEventsConsumer } from './book-p2p/p2p-events.consumer';
import { P2pFeeBooker } from './book-p2p/p2p-fee.booker';
import { LedgerConfig } from './config';
import { BooksMonitor } from './books/books-monitor';
import { AwaitingRateRepository } from './convert-rates/awaiting-rate.repository';
import { SandboxRateFeed } from './convert-rates/sandbox-rate-feed';
import { SuspenseConversionSweeper } from './convert-rates/suspense-conversion.sweeper';
import { LEDGER_MIGRATIONS } from './migrations';
import { SettlementSweeper } from './settle/settlement.sweeper';
import { HoldRepository } from './hold-payouts/hold.repository';
import { PayoutEventsConsumer } from './hold-payouts/payout-events.consumer';
import { PayoutHolds } from './hold-payouts/payout-holds';
import { ReservePayoutHandler } from './hold-payouts/reserve-payout.handler';
import { HoldRefusalRepository } from './hold-refusals/hold-refusal.repository';
import { RefundHoldRepository } from './hold-refunds/refund-hold.repository';
import { RefundHolds } from './hold-refunds/refund-holds';
import { ReserveRefundHandler } from './hold-refunds/reserve-refund.handler';
import { LedgerSettingsHandler } from './ops-settings/ledger-settings.handler';
import { AdjustmentRepository } from './ops-books/adjustment.repository';
import { AdjustBalanceHandler } from './ops-books/adjust-balance.handler';
import { OpsBooksReadHandler } from './ops-books/ops-books-read.handler';
import { AwaitingCreditsHandler } from './ops-books/awaiting-credits.handler';
import { AwaitingCreditsRepository } from './ops-books/awaiting-credits.repository';
import { OrphanHoldSweeper } from './orphan-holds/orphan-hold.sweeper';
import { BalanceReads } from './read-balance/balance.reads';
import { ReadBalanceHandler } from './read-balance/read-balance.handler';
import {
  CLOCK,
  Clock,
  EVENTS_READ_THROUGH,
  EventsReadThrough,
  LEDGER_CONFIG,
  LEDGER_INBOX,
  systemClock,
} from './tokens';

export interface LedgerModuleOptions {
  clock?: Clock;
}

@Module({})
export class LedgerModule {
  static register(config: LedgerConfig, opts: LedgerModuleOptions = {}): DynamicModule {
    const db = { url: config.databaseUrl, schema: config.schema, entities: [], migrations: LEDGER_MIGRATIONS };
    return {
      module: LedgerModule,
      imports: [
        HealthModule.forRoot(config.health),
        HealthReportingModule.forRoot({
          kafka: config.kafka,
          service: 'ledger',
          instanceId: config.instanceId,
          intervalMs: config.health.reportIntervalMs,
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => serviceDataSourceOptions(db),
          dataSourceFactory: () => openServiceDatabase(db),
        }),
      ],
      controllers: [
        OrderEventsConsumer,
        PayoutEventsConsumer,
        P2pEventsConsumer,
        ReservePayoutHandler,
        ReserveRefundHandler,
        ReadBalanceHandler,
        LedgerSettingsHandler,
        OpsBooksReadHandler,
        AdjustBalanceHandler,
        AwaitingCreditsHandler,
      ],
      providers: [
        LedgerRepository,
        OrderBooker,
        P2pFeeBooker,
        HoldRepository,
        PayoutHolds,
        RefundHoldRepository,
        RefundHolds,
        HoldRefusalRepository,
        BalanceReads,
        AdjustmentRepository,
        AwaitingCreditsRepository,
        SettlementSweeper,
        OrphanHoldSweeper,
        AwaitingRateRepository,
        SuspenseConversionSweeper,
        SandboxRateFeed,
        BooksMonitor,
        // Balance events (decision 313): LedgerRepository.post writes them, the relay publishes them.
        OutboxRelayService,
        {
          provide: OUTBOX_RELAY_OPTIONS,
          useValue: {
            databaseUrl: config.databaseUrl,
            schema: config.schema,
            kafka: config.kafka,
            failpoint: config.failpoint,
            stallMs: config.health.stallMs,
          } satisfies OutboxRelayServiceOptions,
        },
        { provide: LEDGER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: opts.clock ?? systemClock },
        {
          provide: EVENTS_READ_THROUGH,
          useFactory: (clock: Clock): EventsReadThrough =>
            new ReadThrough(config.kafka, config.eventsConsumerGroup, () => clock.now()),
          inject: [CLOCK],
        },
        {
          provide: LEDGER_INBOX,
          useFactory: (ds: DataSource) => new Inbox(ds, config.schema, config.consumerGroup),
          inject: [getDataSourceToken()],
        },
      ],
    };
  }
}
