import { KeyRing, needsReseal, openProviderSecret, sealProviderSecret } from '@payments/card-vault';
import type { ProviderAccounts, ProviderIds } from '@payments/contracts';
import type { ProviderDefinition } from '@payments/providers/core';
import { PROVIDERS } from '@payments/providers/registry';
import type { FieldError } from '@payments/platform';

/** A provider whose shops each have an account with it (decision 341), with what its account says. */
export type AccountProvider = ProviderDefinition & {
  settings: ProviderDefinition['settings'] & { account: { secret: string; unique: string } };
};

/** The provider of a code when its shops have accounts with it, or the field error naming it. */
export function accountProviderOf(code: string): AccountProvider | FieldError {
  const p = PROVIDERS.get(code);
  if (p?.settings.account) return p as AccountProvider;
  const codes = [...PROVIDERS.values()].filter((x) => x.settings.account).map((x) => x.code);
  return { path: 'provider', message: `must be a provider shops have accounts with: ${codes.join(', ')}` };
}

/**
 * An operator's account settings as stored and published: validated by the provider's folder
 * (each error names its field under `settings.`), the secret required and sealed for this shop and
 * provider. Never echoes a value: a validation message names the field and the rule only.
 */
export function sealedAccount(
  keys: KeyRing,
  shopId: string,
  p: AccountProvider,
  settings: unknown,
  now: Date,
): { ok: true; account: Record<string, string> } | { ok: false; errors: FieldError[] } {
  const parsed = p.settings.parse(settings);
  if (!parsed.ok) return { ok: false, errors: parsed.errors.map((e) => ({ ...e, path: `settings.${e.path}` })) };
  const value = parsed.value as Record<string, unknown>;
  const secret = value[p.settings.account.secret];
  if (typeof secret !== 'string')
    return { ok: false, errors: [{ path: `settings.${p.settings.account.secret}`, message: 'is required' }] };
  const account: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (k !== p.settings.account.secret) account[k] = String(v);
  account[p.settings.account.secret] = sealProviderSecret(keys, shopId, p.code, secret);
  account.updatedAt = now.toISOString();
  return { ok: true, account };
}

/** What operators read of an account: its public members and when it was set; of the secret only that it is set. */
export interface ProviderAccountView {
  shopId: string;
  provider: string;
  settings: Record<string, string>;
  secretSet: true;
  updatedAt: string;
}

export function accountView(shopId: string, p: AccountProvider, stored: Record<string, string>): ProviderAccountView {
  const { updatedAt, ...rest } = stored;
  const settings = Object.fromEntries(Object.entries(rest).filter(([k]) => k !== p.settings.account.secret));
  return { shopId, provider: p.code, settings, secretSet: true, updatedAt };
}

/**
 * The public ids of a shop's stored accounts, as `shops.settings` carries them beside the sealed
 * accounts (decision 342): each account without its secret member and `updatedAt`. An account of a
 * provider no longer in the registry is left out, since which member is its secret is unknown.
 */
export function publicAccountIds(accounts: ProviderAccounts): ProviderIds {
  const out: ProviderIds = {};
  for (const [code, stored] of Object.entries(accounts)) {
    const p = accountProviderOf(code);
    if ('code' in p) out[code] = accountView('', p, stored).settings;
  }
  return out;
}

/** The secret of a stored account, opened; throws EnvelopeError when it does not open with these keys. */
export function openAccountSecret(keys: KeyRing, shopId: string, p: AccountProvider, stored: Record<string, string>) {
  return openProviderSecret(keys, shopId, p.code, stored[p.settings.account.secret]);
}

/** The accounts with each secret sealed under the active key, or null when none needed it (boot re-sealing). */
export function resealedAccounts(keys: KeyRing, shopId: string, accounts: ProviderAccounts): ProviderAccounts | null {
  let changed = false;
  const out: ProviderAccounts = {};
  for (const [code, stored] of Object.entries(accounts)) {
    const p = accountProviderOf(code);
    const member = 'code' in p ? p.settings.account.secret : null;
    if (!member || !stored[member] || !needsReseal(keys, stored[member])) {
      out[code] = stored;
      continue;
    }
    const secret = openProviderSecret(keys, shopId, code, stored[member]);
    out[code] = { ...stored, [member]: sealProviderSecret(keys, shopId, code, secret) };
    changed = true;
  }
  return changed ? out : null;
}
