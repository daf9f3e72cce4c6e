import { loadCallbacksIngestConfig, RunningCallbacksIngest, startCallbacksIngest } from '@payments/apps/callbacks-ingest';
import { loadGatewayConfig, RunningGateway, startGateway } from '@payments/apps/gateway';
import { loadOrdersConfig, OrdersModuleOptions, RunningOrders, startOrders } from '@payments/apps/orders';
import { loadSandboxConfig, RunningSandbox, startSandbox } from '@payments/apps/provider-sandbox';
import { EnvReader } from '@payments/platform';
import { createTestDatabase, createTestTopics, testBrokers, uniqueName } from '@payments/testing';

export const TEST_OPS_TOKEN = 'ops-test-token-0123456789';
export const TEST_SANDBOX_SECRET = 'sandbox-test-secret';

type ServiceName = 'gateway' | 'orders' | 'callbacks-ingest' | 'provider-sandbox';

export interface StackOptions {
  services?: ServiceName[];
  orders?: OrdersModuleOptions;
  extraEnv?: Record<string, string>;
}

/**
 * The real services, started in this process on ephemeral ports, against the real broker and a
 * database and topic prefix of their own. What runs in production runs here; only the process
 * boundary is folded.
 */
export class TestStack {
  gateway?: RunningGateway;
  orders?: RunningOrders[] = [];
  ingest?: RunningCallbacksIngest;
  sandbox?: RunningSandbox;
  readonly prefix = uniqueName('t') + '.';
  databaseUrl = '';
  private dropDatabase?: () => Promise<void>;
  private deleteTopics?: () => Promise<void>;

  env(extra: Record<string, string> = {}): EnvReader {
    return new EnvReader({
      DATABASE_URL: this.databaseUrl,
      KAFKA_BROKERS: testBrokers().join(','),
      KAFKA_TOPIC_PREFIX: this.prefix,
      OPS_TOKEN: TEST_OPS_TOKEN,
      SANDBOX_CALLBACK_SECRET: TEST_SANDBOX_SECRET,
      LOG_FORMAT: 'pretty',
      ...extra,
    });
  }

  static async start(opts: StackOptions = {}): Promise<TestStack> {
    const stack = new TestStack();
    const db = await createTestDatabase();
    stack.databaseUrl = db.url;
    stack.dropDatabase = db.drop;
    stack.deleteTopics = (await createTestTopics(stack.prefix)).deleteAll;
    const services = opts.services ?? ['gateway', 'orders', 'callbacks-ingest', 'provider-sandbox'];
    const env = () => stack.env(opts.extraEnv);
    if (services.includes('orders')) stack.orders!.push(await startOrders(loadOrdersConfig(env()), 0, opts.orders));
    if (services.includes('callbacks-ingest')) stack.ingest = await startCallbacksIngest(loadCallbacksIngestConfig(env()), 0);
    if (services.includes('gateway')) stack.gateway = await startGateway(loadGatewayConfig(env().withDefaults({ GATEWAY_INSTANCE_ID: uniqueName('gw') })), 0);
    if (services.includes('provider-sandbox')) {
      stack.sandbox = await startSandbox(
        loadSandboxConfig(env().withDefaults({ SANDBOX_CALLBACKS_URL: `${stack.ingest?.url ?? 'http://127.0.0.1:9'}/callbacks/sandbox`, SANDBOX_CALLBACK_DELAY_MS: '50' })),
        0,
      );
    }
    return stack;
  }

  async stop(): Promise<void> {
    await this.sandbox?.close();
    await this.gateway?.close();
    await this.ingest?.close();
    for (const o of this.orders ?? []) await o.close();
    await this.deleteTopics?.();
    await this.dropDatabase?.();
  }
}
