-- One PostgreSQL role per service, owning its schema and granted nothing else: a service (or
-- whoever holds its password) can read and write its own tables only (docs/security.md).
--
-- Run as a superuser once the roles exist (CloudNativePG creates them from postgres.yaml's
-- managed.roles; elsewhere CREATE ROLE ... LOGIN PASSWORD ... first). Idempotent: to run it again
-- (a new service, a restored backup) delete the Job payments-db-roles and apply k8s/infra again.
-- Tables a former shared owner created move to the service's role (their sequences follow).
DO $$
DECLARE
  r record;
  t record;
BEGIN
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  REVOKE ALL ON SCHEMA public FROM PUBLIC;
  FOR r IN
    SELECT * FROM (VALUES
      ('payments_gateway', 'gateway'),
      ('payments_backoffice', 'backoffice'),
      ('payments_orders', 'orders'),
      ('payments_payouts', 'payouts'),
      ('payments_p2p', 'p2p'),
      ('payments_methods', 'methods'),
      ('payments_ledger', 'ledger'),
      ('payments_merchant_callbacks', 'merchant_callbacks'),
      ('payments_callbacks_ingest', 'callbacks_ingest')
    ) AS s(role, schema)
  LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r.role) THEN
      RAISE EXCEPTION 'role % does not exist: create it first (k8s/infra/postgres.yaml managed.roles)', r.role;
    END IF;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), r.role);
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', r.schema, r.role);
    EXECUTE format('ALTER SCHEMA %I OWNER TO %I', r.schema, r.role);
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', r.schema);
    FOR t IN
      SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = r.schema AND c.relkind IN ('r', 'p', 'v', 'm')
    LOOP
      EXECUTE format('ALTER %s %s OWNER TO %I',
        CASE t.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, t.name, r.role);
    END LOOP;
  END LOOP;
END $$;

-- The card vault (libs/card-vault, decision 110): a schema of its own owned by payments_card_vault,
-- a role nobody logs in as. The gateway, orders, payouts and p2p open the vault through their own
-- roles and may only read and write its rows (USAGE, SELECT/INSERT/UPDATE/DELETE; the default
-- privileges cover tables its owner creates later); checkout may only add cards (the next block);
-- no other service can read it. The services cannot create
-- anything there, so its tables are made here, the same statements as cardVaultDdl() in
-- libs/card-vault/src/card-vault.ts (the vault's migrate creates nothing when they exist).
DO $$
DECLARE
  r text;
  t record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'payments_card_vault') THEN
    CREATE ROLE payments_card_vault NOLOGIN;
  END IF;
  CREATE SCHEMA IF NOT EXISTS card_vault AUTHORIZATION payments_card_vault;
  ALTER SCHEMA card_vault OWNER TO payments_card_vault;
  REVOKE ALL ON SCHEMA card_vault FROM PUBLIC;
  CREATE TABLE IF NOT EXISTS card_vault.cards (
    token text PRIMARY KEY,
    fingerprint text,
    bin text,
    last4 text,
    key_id text,
    ciphertext text,
    created_at timestamptz NOT NULL DEFAULT now(),
    rotated_at timestamptz,
    erased_at timestamptz,
    CONSTRAINT cards_erased_or_sealed CHECK ((erased_at IS NULL) = (ciphertext IS NOT NULL AND key_id IS NOT NULL)),
    CONSTRAINT cards_erased_keeps_nothing CHECK (CASE WHEN erased_at IS NULL THEN num_nulls(fingerprint, bin, last4) = 0
                                               ELSE num_nonnulls(fingerprint, bin, last4) = 0 END)
  );
  -- A table from before decision 259, whose erased cards kept their fingerprint, BIN and last 4:
  -- the columns become nullable, those rows are scrubbed, then the constraint holds.
  ALTER TABLE card_vault.cards ALTER COLUMN fingerprint DROP NOT NULL, ALTER COLUMN bin DROP NOT NULL,
    ALTER COLUMN last4 DROP NOT NULL;
  UPDATE card_vault.cards SET fingerprint = NULL, bin = NULL, last4 = NULL
    WHERE erased_at IS NOT NULL AND num_nonnulls(fingerprint, bin, last4) > 0;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'card_vault.cards'::regclass
                 AND conname = 'cards_erased_keeps_nothing') THEN
    ALTER TABLE card_vault.cards ADD CONSTRAINT cards_erased_keeps_nothing CHECK (
      CASE WHEN erased_at IS NULL THEN num_nulls(fingerprint, bin, last4) = 0
           ELSE num_nonnulls(fingerprint, bin, last4) = 0 END);
  END IF;
  CREATE UNIQUE INDEX IF NOT EXISTS cards_live_fingerprint ON card_vault.cards (fingerprint) WHERE erased_at IS NULL;
  CREATE INDEX IF NOT EXISTS cards_sealed_key ON card_vault.cards (key_id) WHERE ciphertext IS NOT NULL;
  FOR t IN
    SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'card_vault' AND c.relkind IN ('r', 'p')
  LOOP
    EXECUTE format('ALTER TABLE %s OWNER TO payments_card_vault', t.name);
    EXECUTE format('REVOKE ALL ON TABLE %s FROM PUBLIC', t.name);
  END LOOP;
  FOREACH r IN ARRAY ARRAY['payments_gateway', 'payments_orders', 'payments_payouts', 'payments_p2p'] LOOP
    EXECUTE format('GRANT USAGE ON SCHEMA card_vault TO %I', r);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA card_vault TO %I', r);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE payments_card_vault IN SCHEMA card_vault '
      'GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I', r);
  END LOOP;
END $$;

-- checkout (the hosted pages, decision 224) has no schema of its own: it only tokenizes the cards
-- typed on its public pages. Its role may connect, look card_vault up, add a card and read back a
-- live card's token by its fingerprint; it reads no ciphertext, changes or deletes no row and
-- reaches no other schema, so its password (on the service nearest the internet) opens no card.
-- The columns are those CardVault.tokenize() uses (libs/card-vault/src/card-vault.ts; its
-- component test tokenizes as this role). Revoked first, so running this again narrows them.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'payments_checkout') THEN
    RAISE EXCEPTION 'role payments_checkout does not exist: create it first (k8s/infra/postgres.yaml managed.roles)';
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO payments_checkout', current_database());
  GRANT USAGE ON SCHEMA card_vault TO payments_checkout;
  REVOKE ALL ON TABLE card_vault.cards FROM payments_checkout;
  GRANT INSERT (token, fingerprint, bin, last4, key_id, ciphertext) ON TABLE card_vault.cards TO payments_checkout;
  GRANT SELECT (token, fingerprint, erased_at) ON TABLE card_vault.cards TO payments_checkout;
END $$;

-- The operators' audit log cannot be rewritten by its writer (issue 28 item 3, decision 262): it
-- has a schema of its own, backoffice_audit, owned with its table by payments_audit, a role nobody
-- logs in as (PostgreSQL lets a schema's owner drop any table in it, and a table's owner grant
-- itself anything back). The backoffice's role may only INSERT and SELECT (and draw ids from the
-- sequence); a grantee without the grant option can neither widen that nor drop the table. Made
-- here, before the backoffice first starts (its migration then finds it and creates nothing). These
-- columns are the only copy: where nobody ran this file the migration makes the table with them
-- (apps/backoffice/src/operators/audit-log.columns.generated.ts, generated from here; its spec says how).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'payments_audit') THEN
    CREATE ROLE payments_audit NOLOGIN;
  END IF;
  CREATE SCHEMA IF NOT EXISTS backoffice_audit AUTHORIZATION payments_audit;
  ALTER SCHEMA backoffice_audit OWNER TO payments_audit;
  REVOKE ALL ON SCHEMA backoffice_audit FROM PUBLIC;
  CREATE TABLE IF NOT EXISTS backoffice_audit.audit_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  operator_id text NOT NULL,
  operator_name text NOT NULL,
  operator_role text NOT NULL,
  action text NOT NULL,
  object_type text NOT NULL,
  object_id text,
  before jsonb,
  after jsonb,
  reason text,
  request text NOT NULL

  );
  CREATE INDEX IF NOT EXISTS audit_log_operator ON backoffice_audit.audit_log (operator_id, id);
  CREATE INDEX IF NOT EXISTS audit_log_object ON backoffice_audit.audit_log (object_type, object_id, id);
  CREATE INDEX IF NOT EXISTS audit_log_action ON backoffice_audit.audit_log (action, id);
  CREATE INDEX IF NOT EXISTS audit_log_at ON backoffice_audit.audit_log (at);
  ALTER TABLE backoffice_audit.audit_log OWNER TO payments_audit;
  REVOKE ALL ON TABLE backoffice_audit.audit_log FROM PUBLIC, payments_backoffice;
  GRANT USAGE ON SCHEMA backoffice_audit TO payments_backoffice;
  GRANT INSERT, SELECT ON TABLE backoffice_audit.audit_log TO payments_backoffice;
  GRANT USAGE ON SEQUENCE backoffice_audit.audit_log_id_seq TO payments_backoffice;
END $$;

-- Operators administer the merchants' companies, shops and API keys, which stay the gateway's
-- (decision 300, an interim step until the gateway answers operator commands over Kafka): the
-- backoffice's role may read and change those rows, add shops.settings snapshots to the gateway's
-- outbox, and forget an erased card's token in the idempotency records; nothing else of the
-- gateway's schema, and it creates nothing there.
DO $$
DECLARE
  t text;
BEGIN
  GRANT USAGE ON SCHEMA gateway TO payments_backoffice;
  FOREACH t IN ARRAY ARRAY['gateway.companies', 'gateway.shops', 'gateway.api_keys', 'gateway.outbox',
                           'gateway.idempotency_keys'] LOOP
    IF to_regclass(t) IS NULL THEN
      RAISE NOTICE 'backoffice: % does not exist yet; run this again once the gateway has started', t;
    END IF;
  END LOOP;
  IF to_regclass('gateway.companies') IS NOT NULL THEN
    GRANT SELECT, INSERT, UPDATE ON TABLE gateway.companies, gateway.shops, gateway.api_keys TO payments_backoffice;
    GRANT INSERT ON TABLE gateway.outbox TO payments_backoffice;
    GRANT USAGE ON SEQUENCE gateway.outbox_id_seq TO payments_backoffice;
  END IF;
  IF to_regclass('gateway.idempotency_keys') IS NOT NULL THEN
    GRANT SELECT, UPDATE ON TABLE gateway.idempotency_keys TO payments_backoffice;
  END IF;
END $$;

-- The backoffice's card vault use: erasing a card (data-subject request) and describing one for
-- the audit record; it reads no ciphertext.
DO $$
BEGIN
  GRANT USAGE ON SCHEMA card_vault TO payments_backoffice;
  REVOKE ALL ON TABLE card_vault.cards FROM payments_backoffice;
  GRANT SELECT (token, bin, last4, erased_at), UPDATE ON TABLE card_vault.cards TO payments_backoffice;
END $$;

-- The reconciliation and the overview (decisions 106, 300): the backoffice reads the other services'
-- data through RECONCILIATION_DATABASE_URL as payments_reconciliation, which may SELECT exactly the
-- operator views of reconciliationReads() (apps/backoffice/src/reconciliation/reconciliation.reads.ts;
-- a test compares the two lists) and no table. Each view is its service's: made by its migration,
-- owned by its role, which reads the table and grants the view (a view runs with its owner's rights),
-- and which shows only the columns the backoffice uses. Granted here again, so that the order in
-- which roles, services and this Job come does not matter; the views missing yet (a first deployment)
-- are named in a NOTICE: run the Job again once the services have started. Everything else the role
-- was granted in those schemas (the tables themselves, before decision 300) is revoked first, so
-- running this again narrows it.
DO $$
DECLARE
  t text;
  s text;
  reads text[] := ARRAY[
    'orders.ops_orders', 'orders.ops_refunds', 'orders.ops_provider_dispatches', 'orders.ops_payment_attempts',
    'orders.ops_shop_routes', 'orders.ops_inbox', 'payouts.ops_payouts', 'payouts.ops_provider_dispatches', 'payouts.ops_inbox',
    'p2p.ops_transactions', 'p2p.ops_provider_dispatches', 'p2p.ops_inbox',
    'callbacks_ingest.ops_provider_callbacks', 'merchant_callbacks.ops_deliveries',
    'gateway.ops_outbox_unpublished', 'orders.ops_outbox_unpublished', 'payouts.ops_outbox_unpublished',
    'p2p.ops_outbox_unpublished', 'callbacks_ingest.ops_outbox_unpublished',
    'ledger.ops_accounts', 'ledger.ops_postings', 'ledger.ops_transactions', 'ledger.ops_holds',
    'ledger.ops_awaiting_rates', 'ledger.ops_outbox_unpublished'
  ];
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'payments_reconciliation') THEN
    RAISE EXCEPTION 'role payments_reconciliation does not exist: create it first (k8s/infra/postgres.yaml managed.roles)';
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO payments_reconciliation', current_database());
  FOR s IN SELECT DISTINCT split_part(x, '.', 1) FROM unnest(reads) AS x LOOP
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM payments_reconciliation', s);
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO payments_reconciliation', s);
  END LOOP;
  FOREACH t IN ARRAY reads LOOP
    IF to_regclass(t) IS NULL THEN
      RAISE NOTICE 'reconciliation: % does not exist yet; run this again once its service has started', t;
    ELSE
      EXECUTE format('GRANT SELECT ON TABLE %s TO payments_reconciliation', t);
    END IF;
  END LOOP;
END $$;
