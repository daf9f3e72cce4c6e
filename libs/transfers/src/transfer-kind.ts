import type { Provider, Type } from '@nestjs/common';
import type { CardVault } from '@payments/card-vault';
import type { Envelope, OperatorIdentity, TransferCost } from '@payments/contracts';
import type { TransferKind } from '@payments/transfers-domain';
import type { FundsSpec } from './transfer-funds';
import type { TransferEntity } from './transfer.entity';

/** A create command, parsed by its kind into what every transfer has plus the kind's own columns. */
export interface NewTransfer<T extends TransferEntity> {
  id: string;
  shopId: string;
  merchantId: string;
  provider: string;
  cost: TransferCost;
  description?: string;
  callbackUrl?: string;
  /** The kind's own columns (method, payee, sender, …). */
  own: Partial<T>;
}

/** The parts of a merchant's view that every kind answers the same way; the kind arranges them. */
export interface TransferViewParts {
  head: {
    id: string;
    shopId: string;
    status: TransferEntity['status'];
    statusCode?: string;
    statusDescription?: string;
  };
  cost: TransferCost;
  /** What the provider reported, while the transfer waits in need_action for a mismatch. */
  reported: { reportedCost?: TransferCost };
  description: { description?: string };
  tail: { callbackUrl?: string; createdAt: string; updatedAt: string };
  /** When the view is made: for what is live only until a moment (a payout link). */
  now: Date;
}

/**
 * What makes a payout a payout and a P2P transaction a P2P transaction: names, topics, table,
 * migrations and the kind's own fields. Everything else is the one pipeline of this library.
 */
export interface TransferKindSpec<T extends TransferEntity = TransferEntity, V = unknown> {
  kind: TransferKind;
  /** The service's name: its logger, Kafka client id and default schema and consumer group. */
  service: string;
  /** How answers and logs name one transfer: "payout", "P2P transaction". */
  noun: string;
  entity: Type<T>;
  migrations: Function[];
  /** Migrations that move card numbers of existing rows into the vault (they need it to run). */
  cardMigrations?(vault: CardVault): Function[];
  /** The entity property, and event field, that holds the merchant's own id (unique per shop). */
  merchantIdField: keyof T & string;
  /** The event field that holds our id, e.g. `payoutId`. */
  idField: string;
  /** `replies`: the reply topics of the requesters that ask it (ReplyTopics), and only those. */
  topics: { commands: readonly string[]; events: string; replies: readonly string[] };
  commandTypes: { create: string; get: string; getByMerchantId: string; listForOperator: string; resolve: string };
  statusChangedType: string;
  /** The provider dispatch queue: its ids' prefix and its column naming the transfer. */
  dispatch: { idPrefix: string; referenceColumn: string };
  parseCreate(message: Envelope, adapterProvider: string): NewTransfer<T>;
  parseGet(message: Envelope): { id: string; shopId: string };
  parseGetByMerchantId(message: Envelope): { merchantId: string; shopId: string };
  /** The resolve command: which transfer, what to do, and the operator who decided (decision 301). */
  parseResolve(message: Envelope): { id: string; action: 'complete' | 'fail'; operator: OperatorIdentity };
  view(t: T, parts: TransferViewParts): V;
  /** The kind's own Kafka routes and jobs, beside the pipeline's (they may inject its providers). */
  extraControllers?: Type[];
  extraProviders?: Provider[];
  /** True while a new transfer waits for details (a payout link): created without a dispatch row. */
  awaitsDetails?(t: T): boolean;
  /** The card tokens the provider needs for this transfer, by role (`payee.cardNumber`, `sender`, …). */
  cardsOf(t: T): Record<string, string>;
  /** Transfers paid from the shop's balance: the ledger reserves them before they are accepted. */
  funds?: FundsSpec<T>;
}

/** Type-checks one kind's spec against its entity and view. */
export function defineTransferKind<T extends TransferEntity, V>(spec: TransferKindSpec<T, V>): TransferKindSpec<T, V> {
  return spec;
}
