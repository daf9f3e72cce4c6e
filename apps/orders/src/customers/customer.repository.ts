export interface PayerIdentity {
  customerId?: string;
  email?: string;
  phone?: string;
}

/*
 * Who pays (spec section 1): the customer with the merchant's `customerId`; else the one with this
 * e-mail and phone; else a new customer. Per shop. Concurrent orders of one new payer end up with
 * one customer (the unique indexes decide). Written in the statement that inserts the order
 * (create-order/insert-registered.ts, docs/decisions.md 217).
 */
