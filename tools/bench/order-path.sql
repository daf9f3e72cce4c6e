-- pgbench script: the PostgreSQL work of one order's life in our services, the same statements in
-- the same transactions, on the bench database's real tables (so the same indexes, constraints and
-- row sizes). The benchmark runs it at the same concurrency as the order load; one pgbench
-- "transaction" is one whole order: create, publish, provider dispatch, callback, fold, publish.
-- Variables from the benchmark: :shop (shop id), :keyhash (the API key's SHA-256).
-- What it leaves out, on purpose: Kafka, HTTP, JSON and Node — that is the rest of the system.
-- Where our services touch several rows one by one (relay batches, the three merchant-callback
-- deliveries), the script does it in one statement: a slightly generous ceiling.

SELECT gen_random_uuid() AS oid, 'pay_' || gen_random_uuid() AS pid, gen_random_uuid() AS ev1, gen_random_uuid() AS ev2, gen_random_uuid() AS ev3, gen_random_uuid() AS ev4 \gset

-- gateway: the merchant's key
SELECT k.id, k.shop_id, s.company_id, s.redirect_domains, s.default_integration FROM gateway.api_keys k JOIN gateway.shops s ON s.id = k.shop_id
 WHERE k.key_hash = ':keyhash' AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now());

-- orders: create (settings; customer and order in one statement that checks neither id is taken; outbox, dispatch row)
BEGIN;
SELECT * FROM orders.shop_settings WHERE shop_id = ':shop';
WITH c AS (
  INSERT INTO orders.customers (id, shop_id, email, phone) SELECT gen_random_uuid(), ':shop', NULL, NULL
   WHERE NOT EXISTS (SELECT 1 FROM orders.orders WHERE id = ':oid' OR (shop_id = ':shop' AND merchant_order_id = 'pgb-' || ':oid'))
  RETURNING id),
o AS (
  INSERT INTO orders.orders (id, shop_id, merchant_order_id, status, status_code, amount, original_amount, currency, sequence, created_at, updated_at, processing_deadline, is_crypto, customer_id)
  SELECT ':oid', ':shop', 'pgb-' || ':oid', 'registered', '1-01-01', 10.99, 10.99, 'USD', 1, now(), now(), now() + interval '7 days', false, c.id FROM c
  ON CONFLICT DO NOTHING RETURNING customer_id)
SELECT customer_id FROM o;
INSERT INTO orders.outbox (topic, key, event_id, envelope) VALUES ('orders.events', ':oid', ':ev1', jsonb_build_object('eventId', ':ev1', 'type', 'order.status_changed', 'version', 1, 'occurredAt', now(), 'payload', jsonb_build_object('orderId', ':oid', 'shopId', ':shop', 'merchantOrderId', 'pgb-' || ':oid', 'sequence', 1, 'status', 'registered', 'previousStatus', null, 'statusCode', '1-01-01', 'statusDescription', 'Order registered; awaiting payment.', 'cost', jsonb_build_object('amount', '10.99', 'currency', 'USD')))) RETURNING id AS ob1 \gset
INSERT INTO orders.provider_dispatches (payment_id, order_id, provider, amount, currency, next_attempt_at, created_at, updated_at) VALUES (':pid', ':oid', 'sandbox', 10.99, 'USD', now(), now(), now());
COMMIT;

-- orders: the relay marks the row published (batched in reality; counted once per row here)
UPDATE orders.outbox SET published_at = now() WHERE id = :ob1;

-- orders: the dispatcher claims the row, sends, records the provider's acceptance
UPDATE orders.provider_dispatches SET claim_token = gen_random_uuid(), claimed_by = 'pgbench', sends = sends + 1 WHERE payment_id = ':pid' AND status = 'pending';
BEGIN;
SELECT sends FROM orders.provider_dispatches WHERE payment_id = ':pid' FOR UPDATE;
SELECT * FROM orders.orders WHERE id = ':oid' FOR UPDATE;
INSERT INTO orders.payment_attempts (order_id, payment_id, provider, status, amount, currency, created_at, updated_at) VALUES (':oid', ':pid', 'sandbox', 'pending', 10.99, 'USD', now(), now()) ON CONFLICT DO NOTHING;
UPDATE orders.orders SET status = 'in_progress', status_code = '1-01-02', sequence = 2, updated_at = now() WHERE id = ':oid';
INSERT INTO orders.outbox (topic, key, event_id, envelope) VALUES ('orders.events', ':oid', ':ev2', jsonb_build_object('eventId', ':ev2', 'type', 'order.status_changed', 'payload', jsonb_build_object('orderId', ':oid', 'sequence', 2, 'status', 'in_progress'))) RETURNING id AS ob2 \gset
UPDATE orders.provider_dispatches SET status = 'accepted', provider_payment_id = 'sbx', updated_at = now() WHERE payment_id = ':pid';
COMMIT;
UPDATE orders.outbox SET published_at = now() WHERE id = :ob2;

-- callbacks-ingest: the provider's callback stored, raw and normalized events in its outbox
BEGIN;
INSERT INTO callbacks_ingest.provider_callbacks (id, provider_code, provider_event_id, reference, raw_body, signature_timestamp) VALUES (gen_random_uuid(), 'sandbox', 'pgb-' || ':ev3', ':oid', '{"eventId":"pgb","kind":"payment","reference":"' || ':oid' || '","status":"success","amount":"10.99","currency":"USD"}', extract(epoch from now())::bigint) ON CONFLICT DO NOTHING;
INSERT INTO callbacks_ingest.outbox (topic, key, event_id, envelope) VALUES ('provider.callbacks.received', ':oid', gen_random_uuid(), jsonb_build_object('rawBody', 'x')) RETURNING id AS obraw \gset
INSERT INTO callbacks_ingest.outbox (topic, key, event_id, envelope) VALUES ('provider.events', ':oid', ':ev3', jsonb_build_object('eventId', ':ev3', 'payload', jsonb_build_object('reference', ':oid', 'status', 'success', 'amount', '10.99', 'currency', 'USD'))) RETURNING id AS ob3 \gset
COMMIT;
UPDATE callbacks_ingest.outbox SET published_at = now() WHERE id IN (:obraw, :ob3);

-- orders: the provider event folded (inbox, order, settings, attempt, status, outbox)
BEGIN;
INSERT INTO orders.inbox (consumer, event_id) VALUES ('orders', ':ev3') ON CONFLICT DO NOTHING RETURNING event_id;
SELECT * FROM orders.orders WHERE id = ':oid' FOR UPDATE;
SELECT * FROM orders.shop_settings WHERE shop_id = ':shop';
SELECT payment_id FROM orders.provider_dispatches WHERE order_id = ':oid' AND provider = 'sandbox' ORDER BY created_at DESC, payment_id DESC LIMIT 1;
SELECT * FROM orders.payment_attempts WHERE order_id = ':oid' AND payment_id = ':pid';
UPDATE orders.payment_attempts SET status = 'success', status_code = '0-01-00', updated_at = now() WHERE order_id = ':oid' AND payment_id = ':pid';
UPDATE orders.orders SET status = 'completed', status_code = '0-01-00', sequence = 3, updated_at = now() WHERE id = ':oid';
INSERT INTO orders.outbox (topic, key, event_id, envelope) VALUES ('orders.events', ':oid', ':ev4', jsonb_build_object('eventId', ':ev4', 'type', 'order.status_changed', 'payload', jsonb_build_object('orderId', ':oid', 'sequence', 3, 'status', 'completed'))) RETURNING id AS ob4 \gset
COMMIT;
UPDATE orders.outbox SET published_at = now() WHERE id = :ob4;

-- merchant-callbacks: each of the order's three status events (registered, in_progress, completed)
-- recorded as a delivery (inbox + row), claimed, posted, and its 2xx recorded in one statement
BEGIN;
INSERT INTO merchant_callbacks.inbox (consumer, event_id) VALUES ('merchant-callbacks', ':ev1') ON CONFLICT DO NOTHING RETURNING event_id;
WITH head AS (INSERT INTO merchant_callbacks.feed_heads (shop_id, last_position) VALUES (':shop', 1)
  ON CONFLICT (shop_id) DO UPDATE SET last_position = merchant_callbacks.feed_heads.last_position + 1 RETURNING last_position)
INSERT INTO merchant_callbacks.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, status, next_attempt_at, window_started_at, feed_position) SELECT gen_random_uuid(), ':ev1', 'order.status_changed', 'order', ':oid', ':shop', 1, '{"eventId":"x","type":"order.status_changed","objectType":"order","objectId":"' || ':oid' || '","sequence":1,"status":"registered","statusCode":"1-01-01","statusDescription":"Order registered; awaiting payment.","cost":{"amount":"10.99","currency":"USD"}}', 'pending', now(), now(), head.last_position FROM head;
COMMIT;
BEGIN;
INSERT INTO merchant_callbacks.inbox (consumer, event_id) VALUES ('merchant-callbacks', ':ev2') ON CONFLICT DO NOTHING RETURNING event_id;
WITH head AS (INSERT INTO merchant_callbacks.feed_heads (shop_id, last_position) VALUES (':shop', 1)
  ON CONFLICT (shop_id) DO UPDATE SET last_position = merchant_callbacks.feed_heads.last_position + 1 RETURNING last_position)
INSERT INTO merchant_callbacks.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, status, next_attempt_at, window_started_at, feed_position) SELECT gen_random_uuid(), ':ev2', 'order.status_changed', 'order', ':oid', ':shop', 2, '{"eventId":"x","type":"order.status_changed","objectType":"order","objectId":"' || ':oid' || '","sequence":2,"status":"in_progress","statusCode":"1-01-02","statusDescription":"Payment is being processed by the provider.","cost":{"amount":"10.99","currency":"USD"}}', 'pending', now(), now(), head.last_position FROM head;
COMMIT;
BEGIN;
INSERT INTO merchant_callbacks.inbox (consumer, event_id) VALUES ('merchant-callbacks', ':ev4') ON CONFLICT DO NOTHING RETURNING event_id;
WITH head AS (INSERT INTO merchant_callbacks.feed_heads (shop_id, last_position) VALUES (':shop', 1)
  ON CONFLICT (shop_id) DO UPDATE SET last_position = merchant_callbacks.feed_heads.last_position + 1 RETURNING last_position)
INSERT INTO merchant_callbacks.deliveries (id, event_id, type, object_type, object_id, shop_id, sequence, body, status, next_attempt_at, window_started_at, feed_position) SELECT gen_random_uuid(), ':ev4', 'order.status_changed', 'order', ':oid', ':shop', 3, '{"eventId":"x","type":"order.status_changed","objectType":"order","objectId":"' || ':oid' || '","sequence":3,"status":"completed","statusCode":"0-01-00","statusDescription":"Operation completed successfully.","cost":{"amount":"10.99","currency":"USD"}}', 'pending', now(), now(), head.last_position FROM head;
COMMIT;
UPDATE merchant_callbacks.deliveries SET claim_token = gen_random_uuid(), claimed_by = 'pgbench', next_attempt_at = now() + interval '10 seconds' WHERE object_id = ':oid' AND status = 'pending';
SELECT callback_url, callback_secret FROM merchant_callbacks.shops WHERE shop_id = ':shop';
WITH done AS (
  UPDATE merchant_callbacks.deliveries SET status = 'delivered', attempts = attempts + 1, last_url = 'http://127.0.0.1/cb', last_response_status = 200, last_error = NULL, claim_token = NULL, next_attempt_at = NULL, updated_at = now(), delivered_at = now()
   WHERE object_id = ':oid' AND status = 'pending' RETURNING id, attempts)
INSERT INTO merchant_callbacks.delivery_attempts (delivery_id, attempt, at, url, response_status, error, latency_ms) SELECT id, attempts, now(), 'http://127.0.0.1/cb', 200, NULL, 3 FROM done;
