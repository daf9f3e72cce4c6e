import {
  loadCallbacksIngestConfig,
  RunningCallbacksIngest,
  startCallbacksIngest,
} from '@payments/apps/callbacks-ingest';
import { loadBackofficeConfig, RunningBackoffice, startBackoffice } from '@payments/apps/backoffice';
import { loadLedgerConfig, RunningLedger, startLedger } from '@payments/apps/ledger';
import { loadCheckoutConfig, RunningCheckout, startCheckout } from '@payments/apps/checkout';
import { loadGatewayConfig, RunningGateway, startGateway } from '@payments/apps/gateway';
import { loadMethodsConfig, RunningMethods, startMethods } from '@payments/apps/methods';
import {
  loadMerchantCallbacksConfig,
  RunningMerchantCallbacks,
  startMerchantCallbacks,
} from '@payments/apps/merchant-callbacks';
import { loadOrdersConfig, OrdersModuleOptions, RunningOrders, startOrders } from '@payments/apps/orders';
import { loadP2pConfig, P2pModuleOptions, RunningP2p, startP2p } from '@payments/apps/p2p';
import { loadPayoutsConfig, PayoutsModuleOptions, RunningPayouts, startPayouts } from '@payments/apps/payouts';
import { loadSandboxConfig, RunningSandbox, startSandbox } from '@payments/apps/provider-sandbox';
import { generatedCardVaultEnv } from '@payments/card-vault';
import { EnvReader } from '@payments/platform';
import {
  createTestDatabase,
  createTestTopics,
  registerOpenApi,
  testBrokers,
  uniqueName,
  unregisterOpenApi,
} from '@payments/testing';

export const TEST_OPS_TOKEN = 'ops-test-token-0123456789';

// Every service of a stack runs in this process and two jest workers run a stack each, on a
// PostgreSQL with 100 connection slots: pools of 10 each ran out ("too many clients already").
process.env.DATABASE_POOL_MAX ??= '4';

/** Gateway merchant URL → the backoffice of the same stack (/ops/v1 is never served by the gateway). */
const operatorUrls = new Map<string, string>();

/** The backoffice (operators' API and console) of the stack whose gateway has this URL. */
export function opsUrlOf(gatewayUrl: string): string {
  const found = operatorUrls.get(gatewayUrl);
  if (!found) throw new Error(`no gateway of a test stack at ${gatewayUrl}`);
  return found;
}
export const TEST_SANDBOX_SECRET = 'sandbox-test-secret';

/** The service's own OpenAPI document, as a client generator would fetch it. */
export async function openApiOf(url: string): Promise<unknown> {
  const res = await fetch(`${url}/docs/openapi.json`);
  if (res.status !== 200) throw new Error(`${url}/docs/openapi.json answered ${res.status}`);
  return res.json();
}

type ServiceName =
  | 'gateway'
  | 'backoffice'
  | 'orders'
  | 'callbacks-ingest'
  | 'provider-sandbox'
  | 'methods'
  | 'merchant-callbacks'
  | 'payouts'
  | 'p2p'
  | 'checkout'
  | 'ledger';

export interface StackOptions {
  /** The gateway comes with the backoffice: merchants' shops are made through the operators' API. */
  services?: ServiceName[];
  /** Adds the hosted pages (apps/checkout) to the default services. */
  checkout?: boolean;
  /** Adds the books (apps/ledger, which answers GET /balance) to the default services. */
  ledger?: boolean;
  orders?: OrdersModuleOptions;
  payouts?: PayoutsModuleOptions;
  p2p?: P2pModuleOptions;
  extraEnv?: Record<string, string>;
}

/**
 * The real services, started in this process on ephemeral ports, against the real broker and a
 * database and topic prefix of their own. What runs in production runs here; only the process
 * boundary is folded.
 */
export class TestStack {
  gateway?: RunningGateway;
  backoffice?: RunningBackoffice;
  orders?: RunningOrders[] = [];
  ingest?: RunningCallbacksIngest;
  sandbox?: RunningSandbox;
  methods?: RunningMethods;
  merchantCallbacks?: RunningMerchantCallbacks;
  payouts?: RunningPayouts;
  p2p?: RunningP2p;
  checkout?: RunningCheckout;
  ledger?: RunningLedger;
  readonly prefix = uniqueName('t') + '.';
  databaseUrl = '';
  /** Keys of this stack's card vault: generated, in memory only (docs/decisions.md 111). */
  readonly cardVaultEnv: Record<string, string> = generatedCardVaultEnv();
  private ordersOptions: OrdersModuleOptions = {};
  private extraEnv: Record<string, string> = {};
  private dropDatabase?: () => Promise<void>;
  private deleteTopics?: () => Promise<void>;

  /**
   * A service's environment. Only a service that tokenizes (the gateway, checkout) gets the
   * fingerprint key, as in k8s and Compose (decision 259): the others start without it.
   */
  env(extra: Record<string, string> = {}, o: { tokenizes?: boolean } = {}): EnvReader {
    const all: Record<string, string> = {
      DATABASE_URL: this.databaseUrl,
      KAFKA_BROKERS: testBrokers().join(','),
      KAFKA_TOPIC_PREFIX: this.prefix,
      OPS_TOKEN: TEST_OPS_TOKEN,
      SANDBOX_CALLBACK_SECRET: TEST_SANDBOX_SECRET,
      // Every service of the stack runs in this one process: each gets an instance id of its own.
      INSTANCE_ID: uniqueName('i'),
      ...this.cardVaultEnv,
      LOG_FORMAT: 'pretty',
      // A green run prints test results, not framework start-up; TEST_LOG_LEVEL=debug shows everything.
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      // Provider timings for tests: the slow-provider scenario (.31) answers after 11 s, so it
      // times out at 8 s. Shorter timeouts were flaky: every service of a stack shares the jest
      // worker's event loop, and on a loaded 2-core CI machine a stack's first provider call
      // took over 3 s (a P2P transfer timed out into need_action 1-07-05 in CI, 2026-11-24).
      PROVIDER_TIMEOUT_MS: '8000',
      SANDBOX_SLOW_MS: '11000',
      SANDBOX_CALLBACK_DELAY_MS: '50',
      // Local development: the tests' callback receivers listen on http://127.0.0.1. Merchant
      // callbacks retry fast (100 ms doubling to 1 s) so a test sees a recovering endpoint quickly.
      CALLBACK_URL_ALLOW_INSECURE: 'true',
      // Every test client is 127.0.0.1: the tests of 401s must not throttle each other
      // (tests/e2e/auth-throttle.spec.ts sets a small burst).
      AUTH_FAILURES_BURST: '1000000',
      MERCHANT_CALLBACKS_BACKOFF_BASE_MS: '100',
      MERCHANT_CALLBACKS_BACKOFF_CAP_MS: '1000',
      MERCHANT_CALLBACKS_TIMEOUT_MS: '2000',
      MERCHANT_CALLBACKS_POLL_MS: '200',
      // No ledger in a test stack unless a test starts one (and turns this on): payouts go ahead unheld.
      LEDGER_HOLDS: 'false',
      ...(this.sandbox ? { SANDBOX_PROVIDER_URL: this.sandbox.url } : {}),
      ...extra,
    };
    if (!o.tokenizes) delete all.CARD_VAULT_FINGERPRINT_KEY;
    return new EnvReader(all);
  }

  static async start(opts: StackOptions = {}): Promise<TestStack> {
    const stack = new TestStack();
    const db = await createTestDatabase();
    stack.databaseUrl = db.url;
    stack.dropDatabase = db.drop;
    stack.deleteTopics = (await createTestTopics(stack.prefix)).deleteAll;
    const services = opts.services ?? [
      'gateway',
      'orders',
      'callbacks-ingest',
      'provider-sandbox',
      'methods',
      'merchant-callbacks',
      'payouts',
      'p2p',
      ...(opts.checkout ? (['checkout'] as const) : []),
      ...(opts.ledger ? (['ledger'] as const) : []),
    ];
    stack.extraEnv = opts.extraEnv ?? {};
    const env = () => stack.env(opts.extraEnv);
    const tokenizing = () => stack.env(opts.extraEnv, { tokenizes: true });
    stack.ordersOptions = opts.orders ?? {};
    // Without a sandbox (and no provider URL of the test's own) orders has nobody to send
    // payment attempts to: its dispatcher stays off unless the test turns it on.
    const noProvider = !services.includes('provider-sandbox') && !opts.extraEnv?.SANDBOX_PROVIDER_URL;
    if (noProvider) {
      stack.ordersOptions = { ...stack.ordersOptions, dispatch: { autoStart: false, ...stack.ordersOptions.dispatch } };
    }
    const withoutProvider = <T extends { dispatch?: object }>(o: T = {} as T): T =>
      noProvider ? { ...o, dispatch: { autoStart: false, ...o.dispatch } } : o;
    // The sandbox calls back into callbacks-ingest, and orders calls the sandbox: start them in that order.
    if (services.includes('callbacks-ingest'))
      stack.ingest = await startCallbacksIngest(loadCallbacksIngestConfig(env()), 0);
    if (services.includes('provider-sandbox')) {
      stack.sandbox = await startSandbox(
        loadSandboxConfig(
          env().withDefaults({
            SANDBOX_CALLBACKS_URL: `${stack.ingest?.url ?? 'http://127.0.0.1:9'}/callbacks/sandbox`,
          }),
        ),
        0,
      );
    }
    if (services.includes('orders')) await stack.startOrders();
    if (services.includes('methods')) stack.methods = await startMethods(loadMethodsConfig(env()), 0);
    if (services.includes('merchant-callbacks'))
      stack.merchantCallbacks = await startMerchantCallbacks(loadMerchantCallbacksConfig(env()), 0);
    if (services.includes('payouts'))
      stack.payouts = await startPayouts(loadPayoutsConfig(env()), 0, withoutProvider(opts.payouts));
    if (services.includes('p2p')) stack.p2p = await startP2p(loadP2pConfig(env()), 0, withoutProvider(opts.p2p));
    if (services.includes('ledger')) stack.ledger = await startLedger(loadLedgerConfig(env()), 0);
    if (services.includes('checkout'))
      stack.checkout = await startCheckout(
        loadCheckoutConfig(tokenizing().withDefaults({ CHECKOUT_INSTANCE_ID: uniqueName('co') })),
        0,
      );
    if (services.includes('gateway'))
      stack.gateway = await startGateway(
        loadGatewayConfig(
          tokenizing().withDefaults({
            GATEWAY_INSTANCE_ID: uniqueName('gw'),
            ...(stack.checkout ? { CHECKOUT_PUBLIC_URL: stack.checkout.url } : {}),
          }),
        ),
        0,
      );
    if (services.includes('gateway') || services.includes('backoffice'))
      stack.backoffice = await startBackoffice(loadBackofficeConfig(env()), 0);
    // Every answer the tests get through http() from these services is held to their documents.
    if (stack.gateway) registerOpenApi('gateway', stack.gateway.url, await openApiOf(stack.gateway.url));
    if (stack.backoffice) registerOpenApi('backoffice', stack.backoffice.url, await openApiOf(stack.backoffice.url));
    if (stack.gateway && stack.backoffice) operatorUrls.set(stack.gateway.url, stack.backoffice.url);
    if (stack.ingest) registerOpenApi('callbacks-ingest', stack.ingest.url, await openApiOf(stack.ingest.url));
    return stack;
  }

  /** Starts one more orders instance on the same database and consumer group (the first is started by `start`). */
  async startOrders(
    extraEnv: Record<string, string> = {},
    opts: OrdersModuleOptions = this.ordersOptions,
  ): Promise<RunningOrders> {
    const running = await startOrders(loadOrdersConfig(this.env({ ...this.extraEnv, ...extraEnv })), 0, opts);
    this.orders!.push(running);
    return running;
  }

  async stop(): Promise<void> {
    for (const running of [this.gateway, this.backoffice, this.ingest]) if (running) unregisterOpenApi(running.url);
    if (this.gateway) operatorUrls.delete(this.gateway.url);
    await this.sandbox?.close();
    await this.backoffice?.close();
    await this.gateway?.close();
    await this.checkout?.close();
    await this.ingest?.close();
    await this.merchantCallbacks?.close();
    for (const o of this.orders ?? []) await o.close();
    await this.methods?.close();
    await this.payouts?.close();
    await this.p2p?.close();
    await this.ledger?.close();
    await this.deleteTopics?.();
    await this.dropDatabase?.();
  }
}
