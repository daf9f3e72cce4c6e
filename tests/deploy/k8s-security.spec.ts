import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { commandTopic, CommandService, HEALTH_TOPIC, replyTopic } from '@payments/contracts';
import { FingerprintKeyUse, readCardVaultConfig } from '@payments/card-vault';
import { EnvReader } from '@payments/platform';
import { readReconciliationConfig } from '../../apps/backoffice/src/reconciliation/reconciliation.config';
import { reconciliationReads } from '../../apps/backoffice/src/reconciliation/reconciliation.reads';

const K8S = path.join(__dirname, '..', '..', 'k8s');
const read = (file: string) => readFileSync(path.join(K8S, file), 'utf8');

/** The services with a database schema and a Kafka client, and their schema. */
const SERVICES: [string, string][] = [
  ['gateway', 'gateway'],
  ['backoffice', 'backoffice'],
  ['orders', 'orders'],
  ['payouts', 'payouts'],
  ['p2p', 'p2p'],
  ['methods', 'methods'],
  ['merchant-callbacks', 'merchant_callbacks'],
  ['callbacks-ingest', 'callbacks_ingest'],
];

/** The services with a Kafka client: those above, and checkout (no schema: the card vault's table only). */
const KAFKA_CLIENTS: string[] = [...SERVICES.map(([service]) => service), 'checkout'];

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

  it.each(KAFKA_CLIENTS)('when %s connects, then it has its own SCRAM user with topic ACLs', (service) => {
    const user = documents('infra/kafka-users.yaml', 'KafkaUser').get(service);
    expect(user).toBeDefined();
    expect(user).toMatch(/authentication:\n\s+type: scram-sha-512/);
    expect(user).toMatch(/authorization:\n\s+type: simple\n\s+acls:/);
    expect(user).not.toMatch(/name: '\*'\n\s+patternType: literal\n\s+operations: \[[^\]]*(Write|All)/);
  });

  it.each(KAFKA_CLIENTS)('when %s starts in k8s, then it logs in over TLS as its own Kafka user', (service) => {
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
  it('when the roles are set up, then payments_audit (no login) owns backoffice_audit and its audit_log, and the backoffice may only INSERT and SELECT', () => {
    const sql = read('infra/db-roles.sql');
    const start = sql.indexOf("-- The operators' audit log");
    const block = sql.slice(start, sql.indexOf('END $$;', start));
    expect(block).toMatch(/CREATE ROLE payments_audit NOLOGIN;/);
    expect(block).toMatch(/CREATE SCHEMA IF NOT EXISTS backoffice_audit AUTHORIZATION payments_audit;/);
    expect(block).toMatch(/ALTER TABLE backoffice_audit\.audit_log OWNER TO payments_audit;/);
    expect(block).toMatch(/REVOKE ALL ON TABLE backoffice_audit\.audit_log FROM PUBLIC, payments_backoffice;/);
    expect(block.match(/^\s*GRANT [^;]+;/gm)!.map((g) => g.trim())).toEqual([
      'GRANT USAGE ON SCHEMA backoffice_audit TO payments_backoffice;',
      'GRANT INSERT, SELECT ON TABLE backoffice_audit.audit_log TO payments_backoffice;',
      'GRANT USAGE ON SEQUENCE backoffice_audit.audit_log_id_seq TO payments_backoffice;',
    ]);
    expect(read('infra/postgres.yaml')).not.toMatch(/- name: payments_audit\n/);
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

  it('when the roles are set up, then payments_reconciliation may SELECT exactly the views reconciliationReads() lists', () => {
    const block = sql.slice(sql.indexOf('payments_reconciliation'));
    const granted = block
      .match(/reads text\[\] := ARRAY\[([^\]]*)\]/)![1]
      .match(/'[^']+'/g)!
      .map((t) => t.slice(1, -1));
    const { schemas } = readReconciliationConfig(new EnvReader({}), 'postgres://unused');
    expect(granted.sort()).toEqual(reconciliationReads(schemas).sort());
    // the services' operator views (decision 300), never a table
    for (const read of granted) expect(read).toMatch(/^\w+\.ops_\w+$/);
    expect(block).toMatch(/REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM payments_reconciliation/);
    expect(block).toMatch(/GRANT SELECT ON TABLE %s TO payments_reconciliation/);
    expect(block).not.toMatch(/GRANT (INSERT|UPDATE|DELETE|ALL|CREATE)/);
    expect(read('infra/postgres.yaml')).toMatch(
      /- name: payments_reconciliation\n\s+login: true\n\s+ensure: present\n\s+passwordSecret:\n\s+name: payments-db-reconciliation/,
    );
  });

  it('when the backoffice starts in k8s, then the reconciliation reads through its own role, and the gateway has none', () => {
    expect(read('base/gateway.yaml')).not.toMatch(/RECONCILIATION_DATABASE_URL|OPS_TOKEN/);
    expect(read('base/backoffice.yaml')).toMatch(
      /- name: RECONCILIATION_DATABASE_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: payments-db-reconciliation\n\s+key: uri/,
    );
  });
});

interface Acl {
  resource: { type: string; name: string; patternType: string };
  operations: string[];
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}
interface Container {
  name: string;
  env?: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  resources?: { requests?: object; limits?: object };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    template?: {
      metadata: { annotations?: Record<string, string> };
      spec: { securityContext: { runAsNonRoot?: boolean; seccompProfile?: { type: string } }; containers: Container[] };
    };
    selector?: Record<string, string>;
    ports?: { name: string; port: number; targetPort?: string }[];
    authorization?: { acls: Acl[] };
    tls?: { hosts: string[] }[];
    rules?: IngressRule[];
  };
}
interface IngressPath {
  path: string;
  pathType: 'Exact' | 'Prefix';
  backend: { service: { name: string; port: { name?: string; number?: number } } };
}
interface IngressRule {
  host: string;
  http: { paths: IngressPath[] };
}

/** The parsed documents of a file of k8s/. */
const manifests = (file: string) => loadAll(read(file)) as Manifest[];
const manifest = (file: string, kind: string, name: string): Manifest => {
  const found = manifests(file).find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`${file}: no ${kind} ${name}`);
  return found;
};
const BASE_FILES = readdirSync(path.join(K8S, 'base')).filter(
  (f) => f.endsWith('.yaml') && !f.includes('template') && f !== 'kustomization.yaml',
);
const deployments = BASE_FILES.flatMap((f) => manifests(`base/${f}`)).filter((m) => m.kind === 'Deployment');
const envOf = (deployment: Manifest, name: string) =>
  deployment.spec.template!.spec.containers[0].env?.find((e) => e.name === name);

/** The backend an Ingress rule sends `urlPath` to, by the Ingress rules (Exact, then the longest Prefix by path element). */
function routeOf(rule: IngressRule, urlPath: string): string | undefined {
  const exact = rule.http.paths.find((p) => p.pathType === 'Exact' && p.path === urlPath);
  if (exact) return exact.backend.service.name;
  const elements = (p: string) => p.split('/').filter(Boolean);
  const prefixes = rule.http.paths
    .filter((p) => p.pathType === 'Prefix')
    .filter((p) => elements(p.path).every((e, i) => elements(urlPath)[i] === e))
    .sort((a, b) => elements(b.path).length - elements(a.path).length);
  return prefixes[0]?.backend.service.name;
}

/** Checkout's code, without its tests. */
function checkoutSource(dir = path.join(__dirname, '..', '..', 'apps', 'checkout', 'src')): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((e) =>
      e.isDirectory()
        ? checkoutSource(path.join(dir, e.name))
        : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts')
          ? readFileSync(path.join(dir, e.name), 'utf8')
          : '',
    )
    .join('\n');
}

describe('checkout (the hosted pages) in k8s', () => {
  const deployment = manifest('base/checkout.yaml', 'Deployment', 'checkout');
  const acls = manifest('infra/kafka-users.yaml', 'KafkaUser', 'checkout').spec.authorization!.acls;
  const users = manifests('infra/kafka-users.yaml').filter((m) => m.kind === 'KafkaUser');
  const source = checkoutSource();
  const checkoutReplies = replyTopic('', 'checkout');

  it('when checkout asks a service, then its Kafka user may write exactly the topics apps/checkout asks on, and its health reports', () => {
    // Checkout asks on the payers' command topics (decision 263): commandTopic('<service>', 'payer').
    const asked = [
      ...new Set(
        [...source.matchAll(/\bcommandTopic\('([\w-]+)', 'payer'\)/g)].map((m) =>
          commandTopic(m[1] as CommandService, 'payer'),
        ),
      ),
    ];
    expect(asked).not.toContain(undefined);
    expect(asked.length).toBeGreaterThan(0);
    const writes = acls.filter(
      (a) => a.resource.type === 'topic' && a.operations.includes('Write') && a.resource.name !== HEALTH_TOPIC,
    );
    expect(writes.map((a) => a.resource.name).sort()).toEqual(asked.sort());
    expect(acls.filter((a) => a.resource.name === HEALTH_TOPIC)).toEqual([
      {
        resource: { type: 'topic', name: HEALTH_TOPIC, patternType: 'literal' },
        operations: ['Write', 'Describe'],
      },
    ]);
    for (const a of writes)
      expect(a).toEqual({
        resource: expect.objectContaining({ patternType: 'literal' }),
        operations: ['Write', 'Describe'],
      });
  });

  it("when a pod starts, then it reads checkout's reply topic with a group of its own (named after the pod) and nothing else is readable", () => {
    expect(deployment.metadata.name).toBe('checkout'); // so every pod's name, and instance id, starts "checkout-"
    expect(envOf(deployment, 'CHECKOUT_INSTANCE_ID')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    const rest = acls.filter((a) => !a.operations.includes('Write'));
    expect(rest).toEqual([
      {
        resource: { type: 'topic', name: checkoutReplies, patternType: 'literal' },
        operations: ['Create', 'Read', 'Describe'],
      },
      {
        resource: { type: 'group', name: `${checkoutReplies}.`, patternType: 'prefix' },
        operations: ['Read', 'Describe', 'Delete'],
      },
    ]);
    expect(source).toMatch(/requester: 'checkout', instanceId: config\.instanceId/);
  });

  it.each(['orders.commands', 'payouts.commands', 'methods.queries'])(
    "when the service reading %s answers checkout, then its Kafka user may write checkout's reply topics",
    (topic) => {
      const readers = users.filter((u) =>
        u.spec.authorization!.acls.some((a) => a.resource.name === topic && a.operations.includes('Read')),
      );
      expect(readers.length).toBeGreaterThan(0);
      for (const reader of readers)
        expect(
          reader.spec.authorization!.acls.some(
            (a) =>
              a.resource.type === 'topic' &&
              a.resource.patternType === 'literal' &&
              a.resource.name === checkoutReplies &&
              a.operations.includes('Write'),
          ),
        ).toBe(true);
    },
  );

  it('when checkout connects to PostgreSQL, then its own role may add cards to the vault and nothing else', () => {
    const sql = read('infra/db-roles.sql');
    expect(envOf(deployment, 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'payments-db-checkout',
      key: 'uri',
    });
    expect(read('infra/postgres.yaml')).toMatch(
      /- name: payments_checkout\n\s+login: true\n\s+ensure: present\n\s+passwordSecret:\n\s+name: payments-db-checkout\n/,
    );
    const grants = sql
      .split('\n')
      .filter((l) => /^\s*(EXECUTE format\(')?GRANT\b/.test(l) && l.includes('payments_checkout'))
      .map((l) => l.trim());
    expect(grants).toEqual([
      "EXECUTE format('GRANT CONNECT ON DATABASE %I TO payments_checkout', current_database());",
      'GRANT USAGE ON SCHEMA card_vault TO payments_checkout;',
      'GRANT INSERT (token, fingerprint, bin, last4, key_id, ciphertext) ON TABLE card_vault.cards TO payments_checkout;',
      'GRANT SELECT (token, fingerprint, erased_at) ON TABLE card_vault.cards TO payments_checkout;',
    ]);
    expect(sql).toMatch(/REVOKE ALL ON TABLE card_vault\.cards FROM payments_checkout;/);
    // not one of the roles that own a schema, nor among the vault's readers
    expect(sql).not.toMatch(/\('payments_checkout', /);
    expect(sql.match(/FOREACH r IN ARRAY ARRAY\[([^\]]*)\]/)![1]).not.toContain('payments_checkout');
  });

  it('when checkout tokenizes a card, then it reads the vault keys from their own Secret', () => {
    for (const key of ['CARD_VAULT_KEYS', 'CARD_VAULT_FINGERPRINT_KEY'])
      expect(envOf(deployment, key)?.valueFrom?.secretKeyRef).toEqual({ name: 'payments-card-vault', key });
  });

  it('when a payer opens a link, then the public host routes only the pages and never /health or /metrics', () => {
    const ingress = manifest('base/ingress.yaml', 'Ingress', 'payments');
    const rule = ingress.spec.rules!.find((r) => r.host === 'pay.payments.example.com')!;
    expect(ingress.spec.tls![0].hosts).toContain(rule.host);
    const pages = [...source.matchAll(/@(?:Get|Post)\('([^':]+)\/:token'\)/g)].map((m) => `/${m[1]}`);
    expect([...new Set(pages)].sort()).toEqual(['/pay', '/payout']);
    for (const page of pages) expect(routeOf(rule, `${page}/p_abc`)).toBe('checkout');
    expect(routeOf(rule, '/metrics')).toBe('payments-not-public');
    expect(routeOf(rule, '/health')).toBeUndefined();
    const service = manifest('base/checkout.yaml', 'Service', 'checkout');
    for (const p of rule.http.paths.filter((p) => p.backend.service.name === 'checkout'))
      expect(service.spec.ports!.map((sp) => sp.name)).toContain(p.backend.service.port.name);
  });

  it("when the gateway makes a link, then it points at checkout's Ingress host (base and local overlay)", () => {
    const ingress = manifest('base/ingress.yaml', 'Ingress', 'payments');
    const index = ingress.spec.rules!.findIndex((r) => r.host === 'pay.payments.example.com');
    expect(envOf(manifest('base/gateway.yaml', 'Deployment', 'gateway'), 'CHECKOUT_PUBLIC_URL')?.value).toBe(
      'https://pay.payments.example.com',
    );
    const local = read('overlays/local/kustomization.yaml');
    expect(local).toContain(`path: /spec/rules/${index}/host\n        value: pay.payments.localhost\n`);
    expect(local).toMatch(/- name: CHECKOUT_PUBLIC_URL\n\s+value: http:\/\/pay\.payments\.localhost\n/);
  });

  it.each(['local', 'production'])(
    "when the %s overlay is applied, then it sets checkout's replicas like the others'",
    (overlay) => {
      expect(read(`overlays/${overlay}/kustomization.yaml`)).toMatch(/- name: checkout\n\s+count: \d+\n/);
    },
  );
});

describe('the card vault keys in k8s (decision 259)', () => {
  const holders = (key: string) =>
    deployments
      .filter((d) => envOf(d, key))
      .map((d) => d.metadata.name)
      .sort();

  it('when the Deployments are read, then the fingerprint key goes only to the two that tokenize, the encryption keys to those that open', () => {
    expect(holders('CARD_VAULT_FINGERPRINT_KEY')).toEqual(['checkout', 'gateway']);
    expect(holders('CARD_VAULT_KEYS')).toEqual([
      'backoffice',
      'callbacks-ingest',
      'checkout',
      'gateway',
      'merchant-callbacks',
      'orders',
      'p2p',
      'payouts',
    ]);
    for (const d of deployments)
      for (const key of ['CARD_VAULT_KEYS', 'CARD_VAULT_FINGERPRINT_KEY'])
        if (envOf(d, key)) expect(envOf(d, key)?.valueFrom?.secretKeyRef).toEqual({ name: 'payments-card-vault', key });
  });

  it('when each service reads its configuration with what its Deployment gives, then it starts: the fingerprint key required exactly where given', () => {
    const env = (keys: string[]) =>
      new EnvReader({
        CARD_VAULT_KEYS: 'k1:' + Buffer.alloc(32, 1).toString('base64'),
        ...(keys.includes('CARD_VAULT_FINGERPRINT_KEY')
          ? { CARD_VAULT_FINGERPRINT_KEY: Buffer.alloc(32, 2).toString('base64') }
          : {}),
      });
    const given = (name: string) =>
      ['CARD_VAULT_KEYS', 'CARD_VAULT_FINGERPRINT_KEY'].filter((k) =>
        envOf(manifest(`base/${name}.yaml`, 'Deployment', name), k),
      );
    const uses: Record<string, FingerprintKeyUse> = {
      gateway: 'required',
      checkout: 'required',
      backoffice: 'none',
      orders: 'none',
      payouts: 'upgrade-only',
      p2p: 'upgrade-only',
    };
    for (const [name, use] of Object.entries(uses)) {
      const reader = env(given(name));
      readCardVaultConfig(reader, use);
      expect(() => reader.done(name)).not.toThrow();
      if (use !== 'required') {
        const without = env(['CARD_VAULT_KEYS']);
        readCardVaultConfig(without, 'required');
        expect(() => without.done(name)).toThrow(/CARD_VAULT_FINGERPRINT_KEY is required/);
      }
    }
    // The services' own configuration asks for the key this way (a service that changes its use fails here).
    const source = (file: string) => readFileSync(path.join(__dirname, '..', '..', file), 'utf8');
    expect(source('apps/gateway/src/config.ts')).toContain("readCardVaultConfig(env, 'required')");
    expect(source('apps/checkout/src/config.ts')).toContain("readCardVaultConfig(env, 'required')");
    expect(source('apps/orders/src/config.ts')).toContain("readCardVaultConfig(env, 'none')");
    expect(source('apps/backoffice/src/config.ts')).toContain("readCardVaultConfig(env, 'none')");
    expect(source('libs/transfers/src/transfer-config.ts')).toContain("readCardVaultConfig(env, 'upgrade-only')");
  });
});

describe('every service in k8s/base', () => {
  it('when the base is applied, then every manifest file of it is a resource (but the Secret template)', () => {
    const resources = read('base/kustomization.yaml').match(/^resources:\n((?: {2}- .+\n)+)/m)![1];
    expect(BASE_FILES.filter((f) => !resources.includes(`- ${f}\n`))).toEqual([]);
  });

  it.each(deployments.map((d) => [d.metadata.name, d] as const))(
    'when %s runs, then it runs as non-root, read-only, without capabilities, with probes and limits',
    (_name, d) => {
      const pod = d.spec.template!.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of pod.containers) {
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.readinessProbe).toBeDefined();
        expect(c.livenessProbe).toBeDefined();
        expect(c.resources?.requests).toBeDefined();
        expect(c.resources?.limits).toBeDefined();
      }
    },
  );

  it('when the internet asks a public host for /metrics, then no service answers it', () => {
    const rules = manifests('base/ingress.yaml').flatMap((m) => (m.kind === 'Ingress' ? m.spec.rules! : []));
    expect(rules.length).toBeGreaterThan(2);
    for (const rule of rules) expect([undefined, 'payments-not-public']).toContain(routeOf(rule, '/metrics'));
  });
});
