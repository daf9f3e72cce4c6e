import { EnvReader, LogConfig, readLogConfig } from '@payments/platform';
import { parseClickSecretKeys } from '@payments/providers/click';
import { parsePaymeKeys } from '@payments/providers/payme';
import { PUBLIC_SANDBOX_SECRETS, SANDBOX_PROVIDER_CODE } from '@payments/providers/sandbox';
import { SANDBOX_B_PROVIDER_CODE } from '@payments/providers/sandbox-b';
import { AcquirerProfile, BinRange, parseBinRanges } from './acquirers/acquirer-profile';

export interface SandboxConfig extends LogConfig {
  callbacksUrl: string;
  secret: string;
  callbackDelayMs: number;
  /** How long the `.31` scenario holds its answer to a payment request. */
  slowMs: number;
  metricsEnabled: boolean;
  /** Where the Click simulator posts Prepare and Complete (`<base>/prepare`, `<base>/complete`). */
  clickCallbacksUrl: string;
  /** The SECRET_KEY of each Click service it plays: the same as callbacks-ingest's CLICK_SECRET_KEYS. */
  clickSecretKeys: Record<string, string>;
  /** Where the Payme simulator posts its JSON-RPC (`<base>/<merchant id>`). */
  paymeCallbacksUrl: string;
  /** The key of each Payme cashbox it plays (merchant id → key): the same as callbacks-ingest's PAYME_KEYS. */
  paymeKeys: Record<string, string>;
  /** The BINs the sandbox acquirer refuses before taking a card payment (decision 323). */
  profile: AcquirerProfile;
  /** The second sandbox acquirer, served under `/sandbox-b`: where its callbacks go, its own BINs. */
  sandboxB: { callbacksUrl: string; profile: AcquirerProfile };
}

/** A list of BIN ranges from the environment; a bad entry stops the start naming the variable. */
function binRanges(env: EnvReader, name: string, fallback: string): BinRange[] {
  const r = parseBinRanges(env.string(name, fallback));
  if ('problem' in r) env.fail(`${name} ${r.problem}`);
  return 'value' in r ? r.value : [];
}

export function loadSandboxConfig(env = new EnvReader()): SandboxConfig {
  const callbacksUrl = env.string('SANDBOX_CALLBACKS_URL', 'http://127.0.0.1:3001/callbacks/sandbox');
  const keys = parseClickSecretKeys(env.string('CLICK_SECRET_KEYS', '{}'));
  if (!keys.ok) env.fail(`CLICK_SECRET_KEYS ${keys.error}`);
  const paymeKeys = parsePaymeKeys(env.string('PAYME_KEYS', '{}'));
  if (!paymeKeys.ok) env.fail(`PAYME_KEYS ${paymeKeys.error}`);
  const config: SandboxConfig = {
    callbacksUrl,
    secret: env.secret('SANDBOX_CALLBACK_SECRET', PUBLIC_SANDBOX_SECRETS),
    callbackDelayMs: env.int('SANDBOX_CALLBACK_DELAY_MS', 200, { min: 0, max: 600000 }),
    slowMs: env.int('SANDBOX_SLOW_MS', 15000, { min: 0, max: 600000 }),
    ...readLogConfig(env),
    metricsEnabled: env.bool('METRICS_ENABLED', true),
    // Beside the sandbox's own callbacks, on the same callbacks-ingest, unless told otherwise.
    clickCallbacksUrl: env.string('CLICK_CALLBACKS_URL', new URL('/callbacks/click', callbacksUrl).toString()),
    clickSecretKeys: keys.ok ? keys.value : {},
    paymeCallbacksUrl: env.string('PAYME_CALLBACKS_URL', new URL('/callbacks/payme', callbacksUrl).toString()),
    paymeKeys: paymeKeys.ok ? paymeKeys.value : {},
    // Two acquirers configured differently, so that failover plays locally (decision 323).
    profile: {
      code: SANDBOX_PROVIDER_CODE,
      unavailable: binRanges(env, 'SANDBOX_UNAVAILABLE_BINS', '450000-450099'),
      declined: binRanges(env, 'SANDBOX_DECLINE_BINS', '450100-450199'),
    },
    sandboxB: {
      callbacksUrl: env.string('SANDBOX_B_CALLBACKS_URL', new URL(SANDBOX_B_PROVIDER_CODE, callbacksUrl).toString()),
      profile: {
        code: SANDBOX_B_PROVIDER_CODE,
        unavailable: binRanges(env, 'SANDBOX_B_UNAVAILABLE_BINS', 'none'),
        declined: binRanges(env, 'SANDBOX_B_DECLINE_BINS', '450190-450199'),
      },
    },
  };
  env.done('provider-sandbox');
  return config;
}

export const SANDBOX_CONFIG = Symbol('SANDBOX_CONFIG');
