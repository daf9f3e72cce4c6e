// The whole system as separate processes on a database and topic prefix of its own: shared by
// `npm run bench` and `npm run test:faults`, which both need real processes they can measure or kill.
import { createHmac } from 'node:crypto';
import net from 'node:net';
import { newCardVaultEnv } from './card-vault-keys.mjs';

/** The services that take part, with the variable that sets each one's HTTP port. */
export const SERVICES = [
  ['orders', 'ORDERS_HTTP_PORT'],
  ['callbacks-ingest', 'CALLBACKS_INGEST_HTTP_PORT'],
  ['provider-sandbox', 'PROVIDER_SANDBOX_HTTP_PORT'],
  ['merchant-callbacks', 'MERCHANT_CALLBACKS_HTTP_PORT'],
  ['gateway', 'GATEWAY_HTTP_PORT'],
  ['checkout', 'CHECKOUT_HTTP_PORT'],
  // The operators' API and console (/ops/v1): shops and API keys are made through it.
  ['backoffice', 'BACKOFFICE_HTTP_PORT'],
];

/**
 * The rest of the system, which `npm start` runs too: payout and payment methods, payouts and P2P.
 * The fault suite runs them all (ALL_SERVICES); the bench runs SERVICES and the ledger.
 */
export const TRANSFER_SERVICES = [
  ['methods', 'METHODS_HTTP_PORT'],
  ['payouts', 'PAYOUTS_HTTP_PORT'],
  ['p2p', 'P2P_HTTP_PORT'],
];

/**
 * The books (issue 29): every completed order's credit, payouts' and refunds' holds. The bench and
 * the fault suite run it with LEDGER_HOLDS on (`systemEnv`); the bench can leave it out
 * (BENCH_LEDGER=0) to measure what it costs.
 */
export const LEDGER_SERVICE = ['ledger', 'LEDGER_HTTP_PORT'];

/** Every service of the system, with the variable that sets its HTTP port. */
export const ALL_SERVICES = [...SERVICES, ...TRANSFER_SERVICES, LEDGER_SERVICE];

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The provider signature callbacks-ingest checks: HMAC-SHA256(secret, "<t>.<raw body>"). */
export function signSandbox(secret, body) {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * Free ports for `services` (SERVICES unless given).
 * @param {string[][]} [services]
 */
export async function freePorts(services = SERVICES) {
  const names = services.map(([name]) => name);
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await freePort()])));
}

/**
 * The variables that name one process of a service: the gateway's and checkout's own, and the
 * generic INSTANCE_ID every service reads (a service that does not know one ignores it). A fresh
 * id on every start of a process, as a new pod gets: today a requester's id names its reply topic
 * (`gateway.replies.<id>`, checkout's too), so two processes must never share one.
 * @param {string} instanceId
 */
export function instanceEnv(instanceId) {
  return { INSTANCE_ID: instanceId, GATEWAY_INSTANCE_ID: instanceId, CHECKOUT_INSTANCE_ID: instanceId };
}

/**
 * The environment every service of one isolated run gets, with card vault keys of its own. The
 * HTTP port of every service `ports` names (ALL_SERVICES). `metadataMaxAgeMs`, where given, is how
 * often the services' Kafka clients refresh their metadata (KAFKA_METADATA_MAX_AGE_MS): the fault
 * suite keeps it short, so that a scenario can wait past two refreshes. Where `ports` has a ledger,
 * payouts and refunds ask it for their holds (LEDGER_HOLDS; decisions 273, 276) and its settlement
 * sweep runs every half second (a shop whose settlement delay is 0 can pay out at once); without
 * one they go ahead unheld.
 * @param {{ infraEnv: Record<string, string>, dbUrl: string, prefix: string, ports: Record<string, number>,
 *   opsToken: string, sandboxSecret: string, instanceId: string, metadataMaxAgeMs?: number }} opts
 */
export function systemEnv({ infraEnv, dbUrl, prefix, ports, opsToken, sandboxSecret, instanceId, metadataMaxAgeMs }) {
  const ledger = ports.ledger !== undefined;
  return {
    ...infraEnv,
    DATABASE_URL: dbUrl,
    KAFKA_TOPIC_PREFIX: prefix,
    OPS_TOKEN: opsToken,
    SANDBOX_CALLBACK_SECRET: sandboxSecret,
    SANDBOX_PROVIDER_URL: `http://127.0.0.1:${ports['provider-sandbox']}`,
    SANDBOX_CALLBACKS_URL: `http://127.0.0.1:${ports['callbacks-ingest']}/callbacks/sandbox`,
    GATEWAY_INSTANCE_ID: instanceId,
    CHECKOUT_PUBLIC_URL: `http://127.0.0.1:${ports.checkout}`,
    LOG_FORMAT: 'json',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    CALLBACK_URL_ALLOW_INSECURE: 'true',
    AUTH_FAILURES_BURST: '1000000',
    LEDGER_HOLDS: String(ledger),
    ...(ledger ? { LEDGER_SETTLEMENT_SWEEP_MS: '500' } : {}),
    ...newCardVaultEnv(),
    ...Object.fromEntries(
      ALL_SERVICES.filter(([name]) => ports[name] !== undefined).map(([name, variable]) => [
        variable,
        String(ports[name]),
      ]),
    ),
    ...(metadataMaxAgeMs ? { KAFKA_METADATA_MAX_AGE_MS: String(metadataMaxAgeMs) } : {}),
  };
}
