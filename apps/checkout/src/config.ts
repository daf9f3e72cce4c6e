import { hostname } from 'node:os';
import { readCardVaultConfig, TokenizingCardVaultConfig } from '@payments/card-vault';
import { CommonConfig, EnvReader, readCommonConfig, safeInstanceId } from '@payments/platform';
import { PAYME_CHECKOUT_URL } from '@payments/providers/payme';
import type { CheckoutProviderUrls } from './provider-links';

export interface CheckoutConfig extends CommonConfig {
  /** Names this instance's reply topic; unique per running instance. */
  instanceId: string;
  requestTimeoutMs: number;
  /** Requests per client address (token bucket): a card-testing bot is slowed, a payer never. */
  perClient: { perSecond: number; burst: number };
  /** Requests per link: the status view reloads every 2 s; a link hammered from many addresses is stopped. */
  perLink: { perSecond: number; burst: number };
  /** A card typed on a page is tokenized here, at the edge (ARCHITECTURE.md section 10). */
  cardVault: TokenizingCardVaultConfig;
  /** How long a live link's view serves page loads without asking again (0: always ask; decision 223). */
  viewMaxAgeMs: number;
  /**
   * Where Click's pay page (`CLICK_PAY_URL`) and Payme's checkout (`PAYME_CHECKOUT_URL`) are. Which
   * shop takes them comes with the order's view (decision 342), not from here.
   */
  providerUrls: CheckoutProviderUrls;
}

export function loadCheckoutConfig(env = new EnvReader()): CheckoutConfig {
  const config: CheckoutConfig = {
    ...readCommonConfig(env, 'checkout'),
    // CHECKOUT_INSTANCE_ID: the name it had before every service read INSTANCE_ID.
    instanceId: safeInstanceId(
      env.string('CHECKOUT_INSTANCE_ID', env.string('INSTANCE_ID', `checkout-${hostname()}-${process.pid}`)),
    ),
    requestTimeoutMs: env.int('CHECKOUT_REQUEST_TIMEOUT_MS', 5000, { min: 100, max: 60000 }),
    perClient: {
      perSecond: env.int('CHECKOUT_RATE_PER_CLIENT_PER_SECOND', 5, { min: 1, max: 1_000_000 }),
      burst: env.int('CHECKOUT_RATE_PER_CLIENT_BURST', 60, { min: 1, max: 10_000_000 }),
    },
    perLink: {
      perSecond: env.int('CHECKOUT_RATE_PER_LINK_PER_SECOND', 2, { min: 1, max: 1_000_000 }),
      burst: env.int('CHECKOUT_RATE_PER_LINK_BURST', 30, { min: 1, max: 10_000_000 }),
    },
    // Tokenizes the cards typed on its pages (decision 224).
    cardVault: readCardVaultConfig(env, 'required'),
    viewMaxAgeMs: env.int('CHECKOUT_VIEW_MAX_AGE_MS', 3000, { min: 0, max: 60_000 }),
    providerUrls: {
      clickPayUrl: env.httpUrl('CLICK_PAY_URL', 'https://my.click.uz'),
      paymeCheckoutUrl: env.httpUrl('PAYME_CHECKOUT_URL', PAYME_CHECKOUT_URL),
    },
  };
  // Shops' Click and Payme accounts are operator settings (decisions 341, 342): a deployment that
  // still lists them here is told so, rather than shown buttons that disagree with the operators'.
  for (const name of ['CLICK_SHOPS', 'PAYME_SHOPS'])
    if (env.optionalString(name) !== undefined)
      env.fail(`${name} is no longer read: set each shop's account with PUT /ops/v1/shops/{id}/providers/{provider}`);
  env.done('checkout');
  return config;
}

export const CHECKOUT_CONFIG = Symbol('CHECKOUT_CONFIG');
export const REQUEST_CLIENT = Symbol('REQUEST_CLIENT');
export const CARD_VAULT = Symbol('CARD_VAULT');
