import { readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';

const ROOT = path.join(__dirname, '..', '..');
const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');

/** The `environment:` value of one variable of one compose service, as written. */
function composeValue(service: string, variable: string): string | undefined {
  const block = compose.split(/\n {2}(?=[\w-]+:\n)/).find((b) => b.startsWith(`${service}:\n`));
  return block?.match(new RegExp(`\\n\\s+${variable}: (.+)`))?.[1].trim();
}

describe('the secrets of docker-compose.yml', () => {
  it.each(['local-ops-token-change-me', 'sandbox-local-secret'])(
    'when the compose file is read, then the public value %s appears nowhere',
    (value) => {
      expect(compose).not.toContain(value);
    },
  );

  it.each(['local-ops-token-change-me', 'sandbox-local-secret'])(
    'when the local k8s overlay is read, then the public value %s appears nowhere',
    (value) => {
      expect(readFileSync(path.join(ROOT, 'k8s', 'overlays', 'local', 'kustomization.yaml'), 'utf8')).not.toContain(
        value,
      );
    },
  );

  it.each([
    ['backoffice', 'OPS_TOKEN'],
    ['callbacks-ingest', 'SANDBOX_CALLBACK_SECRET'],
    ['provider-sandbox', 'SANDBOX_CALLBACK_SECRET'],
    ['kafka-ui', 'SPRING_SECURITY_USER_PASSWORD'],
  ])('when %s is started, then %s must be given (${VAR:?…}), never defaulted', (service, variable) => {
    expect(composeValue(service, variable)).toMatch(/^\$\{[A-Z_]+:\?.+\}$/);
  });

  it.each(['gateway', 'backoffice', 'merchant-callbacks'])(
    'when %s is started without CALLBACK_URL_ALLOW_INSECURE, then private callback URLs stay refused',
    (service) => {
      expect(composeValue(service, 'CALLBACK_URL_ALLOW_INSECURE')).toBe("'${CALLBACK_URL_ALLOW_INSECURE:-false}'");
    },
  );

  it('when the Kafka dashboard is opened, then it asks for a login', () => {
    expect(composeValue('kafka-ui', 'AUTH_TYPE')).toBe('LOGIN_FORM');
  });

  it('when the services are started, then the fingerprint key goes only to the gateway and checkout (decision 259)', () => {
    type Env = Record<string, unknown>;
    const services = (load(compose) as { services: Record<string, { environment?: Env }> }).services;
    /** A service's environment with its `<<` merges resolved, as Compose does. */
    const envOf = (env: Env = {}): Env => {
      const merged = ([] as Env[]).concat((env['<<'] as Env | Env[] | undefined) ?? []);
      return Object.assign({}, ...merged, ...[env].map(({ ['<<']: _, ...rest }) => rest));
    };
    const holders = (key: string) =>
      Object.entries(services)
        .filter(([, s]) => key in envOf(s.environment))
        .map(([name]) => name)
        .sort();
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
    expect(envOf(services.gateway.environment).CARD_VAULT_FINGERPRINT_KEY).toMatch(
      /^\$\{CARD_VAULT_FINGERPRINT_KEY:\?.+\}$/,
    );
  });
});
