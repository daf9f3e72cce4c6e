import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { ORDERS_CONFIG, OrdersConfig } from '../config';

export interface PayerIdentity {
  customerId?: string;
  email?: string;
  phone?: string;
}

/**
 * Who pays (spec section 1): the customer with the merchant's `customerId`; else the one with this
 * e-mail and phone; else a new customer. Per shop. Concurrent orders of one new payer end up with
 * one customer (the unique indexes decide, the loser reads the winner).
 */
@Injectable()
export class CustomerRepository {
  constructor(@Inject(ORDERS_CONFIG) private readonly config: OrdersConfig) {}

  async identify(m: EntityManager, shopId: string, payer: PayerIdentity): Promise<string> {
    const s = this.config.schema;
    if (payer.customerId) {
      const rows: { id: string }[] = await m.query(
        `INSERT INTO "${s}".customers (id, shop_id, external_id, email, phone) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (shop_id, external_id) WHERE external_id IS NOT NULL DO UPDATE SET external_id = EXCLUDED.external_id
         RETURNING id`,
        [randomUUID(), shopId, payer.customerId, payer.email ?? null, payer.phone ?? null],
      );
      return rows[0].id;
    }
    if (payer.email && payer.phone) {
      const rows: { id: string }[] = await m.query(
        `INSERT INTO "${s}".customers (id, shop_id, email, phone) VALUES ($1, $2, $3, $4)
         ON CONFLICT (shop_id, lower(email), phone) WHERE external_id IS NULL AND email IS NOT NULL AND phone IS NOT NULL
         DO UPDATE SET email = "${s}".customers.email
         RETURNING id`,
        [randomUUID(), shopId, payer.email, payer.phone],
      );
      return rows[0].id;
    }
    const id = randomUUID();
    await m.query(`INSERT INTO "${s}".customers (id, shop_id, email, phone) VALUES ($1, $2, $3, $4)`, [
      id,
      shopId,
      payer.email ?? null,
      payer.phone ?? null,
    ]);
    return id;
  }
}
