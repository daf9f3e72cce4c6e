import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EnvReader } from '@payments/platform';
import { readReconciliationConfig } from '../../apps/gateway/src/reconciliation/reconciliation.config';
import { reconciliationReads } from '../../apps/gateway/src/reconciliation/reconciliation.reads';

const K8S = path.join(__dirname, '..', '..', 'k8s');
const read = (file: string) => readFileSync(path.join(K8S, file), 'utf8');

/** The services with a database schema and a Kafka client, and their schema. */
const SERVICES: [string, string][] = [
  ['gateway', 'gateway'],
  ['orders', 'orders'],
  ['payouts', 'payouts'],
  ['p2p', 'p2p'],
  ['methods', 'methods'],
  ['merchant-callbacks', 'merchant_callbacks'],
  ['callbacks-ingest', 'callbacks_ingest'],
];

/** The YAML documents of a file that declare `kind`, by metadata.name. */
function documents(file: string, kind: string): Map<string, string> {
  const docs = read(file)
    .split(/^---$/m)
    .filter((d) => new RegExp(`^kind: ${kind}$`, 'm').test(d));
  return new Map(docs.map((d) => [d.match(/^metadata:\n\s+name: (\S+)/m)![1], d]));
}

describe('Kafka in k8s/infra', () => {
  const kafka = read('infra/kafka.yaml');

  it('when a client connects, then the only listener is TLS with SCRAM-SHA-512 and authorization is on', () => {
    expect(kafka).not.toMatch(/tls: false/);
    expect(kafka).toMatch(
      /- name: tls\n\s+port: 9093\n\s+type: internal\n\s+tls: true\n\s+authentication:\n\s+type: scram-sha-512/,
    );
    expect(kafka).toMatch(/authorization:\n\s+type: simple/);
    expect(kafka).toMatch(/userOperator: \{\}/);
  });

  it.each(SERVICES)('when %s connects, then it has its own SCRAM user with topic ACLs', (service) => {
    const user = documents('infra/kafka-users.yaml', 'KafkaUser').get(service);
    expect(user).toBeDefined();
    expect(user).toMatch(/authentication:\n\s+type: scram-sha-512/);
    expect(user).toMatch(/authorization:\n\s+type: simple\n\s+acls:/);
    expect(user).not.toMatch(/name: '\*'\n\s+patternType: literal\n\s+operations: \[[^\]]*(Write|All)/);
  });

  it.each(SERVICES)('when %s starts in k8s, then it logs in over TLS as its own Kafka user', (service) => {
    const deployment = read(`base/${service}.yaml`);
    expect(deployment).toMatch(new RegExp(`- name: KAFKA_SASL_USERNAME\\n\\s+value: ${service}\\n`));
    expect(deployment).toMatch(
      new RegExp(
        `- name: KAFKA_SASL_PASSWORD\\n\\s+valueFrom:\\n\\s+secretKeyRef:\\n\\s+name: ${service}\\n\\s+key: password`,
      ),
    );
    expect(deployment).toMatch(/secretName: payments-cluster-ca-cert/);
    expect(read('base/kustomization.yaml')).toMatch(/KAFKA_BROKERS=payments-kafka-bootstrap:9093/);
    expect(read('base/kustomization.yaml')).toMatch(/KAFKA_SSL=true/);
    expect(read('base/kustomization.yaml')).toMatch(/KAFKA_SASL_MECHANISM=scram-sha-512/);
  });
});

describe('PostgreSQL roles in k8s', () => {
  const sql = read('infra/db-roles.sql');

  it.each(SERVICES)('when %s connects, then it uses its own role, which owns its schema only', (service, schema) => {
    expect(read(`base/${service}.yaml`)).toMatch(
      new RegExp(`- name: DATABASE_URL\\n\\s+valueFrom:\\n\\s+secretKeyRef:\\n\\s+name: payments-db-${service}\\n`),
    );
    expect(read(`base/${service}.yaml`)).not.toMatch(/payments-db-app/);
    expect(sql).toContain(`('payments_${schema}', '${schema}')`);
    expect(read('infra/postgres.yaml')).toMatch(new RegExp(`- name: payments_${schema}\\n\\s+login: true`));
  });

  it('when the roles are set up, then PUBLIC keeps no rights on the database or the public schema', () => {
    expect(sql).toMatch(/REVOKE ALL ON DATABASE %I FROM PUBLIC/);
    expect(sql).toMatch(/REVOKE ALL ON SCHEMA public FROM PUBLIC/);
  });
});

describe('the audit log in k8s', () => {
  it('when the roles are set up, then the gateway may only add to and read gateway.audit_log', () => {
    const sql = read('infra/db-roles.sql');
    expect(sql).toMatch(/REVOKE UPDATE, DELETE, TRUNCATE ON TABLE gateway\.audit_log FROM payments_gateway;/);
    expect(sql.slice(sql.indexOf('gateway.audit_log'))).not.toMatch(/GRANT/);
  });
});

describe('the card vault schema in k8s', () => {
  const sql = read('infra/db-roles.sql');
  const vaultBlock = sql.slice(sql.indexOf('payments_card_vault'));

  it('when the roles are set up, then card_vault has one owner role and row rights for gateway, orders, payouts and p2p only', () => {
    expect(sql).toMatch(/CREATE SCHEMA IF NOT EXISTS card_vault AUTHORIZATION payments_card_vault/);
    expect(sql).toMatch(/CREATE ROLE payments_card_vault NOLOGIN/);
    expect(sql).toMatch(/REVOKE ALL ON SCHEMA card_vault FROM PUBLIC/);
    const grantees = vaultBlock.match(/FOREACH r IN ARRAY ARRAY\[([^\]]*)\]/)![1];
    // orders opens the card typed on a hosted payment page just before the provider call (issue 20).
    expect(grantees.match(/'(\w+)'/g)!.sort()).toEqual([
      "'payments_gateway'",
      "'payments_orders'",
      "'payments_p2p'",
      "'payments_payouts'",
    ]);
    expect(vaultBlock).toMatch(/GRANT USAGE ON SCHEMA card_vault TO %I/);
    expect(vaultBlock).toMatch(/GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA card_vault TO %I/);
    expect(vaultBlock).toMatch(
      /ALTER DEFAULT PRIVILEGES FOR ROLE payments_card_vault IN SCHEMA card_vault '\s*'GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I/,
    );
    expect(vaultBlock).not.toMatch(/GRANT (ALL|CREATE)/);
  });
});

describe('rolling out merchant-callbacks', () => {
  it('when it is deployed, then old and new pods never run together (Recreate: its migrations need new writers)', () => {
    const deployment = documents('base/merchant-callbacks.yaml', 'Deployment').get('merchant-callbacks')!;
    expect(deployment).toMatch(/^ {2}strategy:\n {4}type: Recreate\n/m);
    expect(deployment).not.toMatch(/rollingUpdate:/);
  });
});

describe('the reconciliation in k8s', () => {
  const sql = read('infra/db-roles.sql');

  it('when the roles are set up, then payments_reconciliation may SELECT exactly what reconciliationReads() lists', () => {
    const block = sql.slice(sql.indexOf('payments_reconciliation'));
    const granted = block
      .match(/reads text\[\] := ARRAY\[([^\]]*)\]/)![1]
      .match(/'[^']+'/g)!
      .map((t) => t.slice(1, -1));
    const { schemas } = readReconciliationConfig(new EnvReader({}), 'postgres://unused');
    expect(granted.sort()).toEqual(reconciliationReads(schemas).sort());
    expect(block).toMatch(/GRANT SELECT ON TABLE %s TO payments_reconciliation/);
    expect(block).not.toMatch(/GRANT (INSERT|UPDATE|DELETE|ALL|CREATE)/);
    expect(read('infra/postgres.yaml')).toMatch(
      /- name: payments_reconciliation\n\s+login: true\n\s+ensure: present\n\s+passwordSecret:\n\s+name: payments-db-reconciliation/,
    );
  });

  it('when the gateway starts in k8s, then the reconciliation reads through its own role', () => {
    expect(read('base/gateway.yaml')).toMatch(
      /- name: RECONCILIATION_DATABASE_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: payments-db-reconciliation\n\s+key: uri/,
    );
  });
});
