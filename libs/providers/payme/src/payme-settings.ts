import { z } from 'zod';
import type { SettingsParse } from '@payments/providers/core';

/** A shop's Payme cashbox: its merchant id (public: the checkout link names it) and its key (a secret). */
const paymeShopSettings = z
  .object({
    merchantId: z.string().regex(/^[0-9a-f]{24}$/, { error: 'must be the 24 hex digits of a Payme merchant id' }),
    key: z
      .string()
      .min(8, { error: 'must be at least 8 characters' })
      .max(256)
      .optional()
      .describe("The cashbox's key (Basic authorization of Payme's calls); a secret, only callbacks-ingest opens it"),
  })
  .strict();

export function parsePaymeSettings(input: unknown): SettingsParse<z.infer<typeof paymeShopSettings>> {
  const r = paymeShopSettings.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    errors: r.error.issues.map((i) => ({
      path: i.code === 'unrecognized_keys' ? i.keys.join(', ') : i.path.join('.') || '(settings)',
      message: i.message,
    })),
  };
}

/** A Payme cashbox (its merchant id) of a shop: `PAYME_SHOPS`, JSON, read at boot (as Click's, decision 294). */
const paymeShops = z.array(
  z
    .object({
      shopId: z.uuid({ error: 'must be a shop id (UUID)' }),
      merchantId: z.string().regex(/^[0-9a-f]{24}$/, { error: 'must be the 24 hex digits of a Payme merchant id' }),
    })
    .strict(),
);
export type PaymeShop = z.infer<typeof paymeShops>[number];

/** `PAYME_SHOPS` alone (public: checkout shows "Pay with Payme" from it); an error names the entry. */
export function parsePaymeShops(shopsJson: string): { ok: true; value: PaymeShop[] } | { ok: false; error: string } {
  let shops: unknown;
  try {
    shops = JSON.parse(shopsJson);
  } catch {
    return { ok: false, error: 'must be JSON' };
  }
  const s = paymeShops.safeParse(shops);
  if (!s.success) return { ok: false, error: `[${s.error.issues[0].path.join('].')} ${s.error.issues[0].message}` };
  return { ok: true, value: s.data };
}

/** `PAYME_SHOPS` and `PAYME_KEYS` (merchant id → the cashbox's key, a secret); an error names the entry, never a key. */
export function parsePaymeConfig(
  shopsJson: string,
  keysJson: string,
): { ok: true; shops: PaymeShop[]; keys: Record<string, string> } | { ok: false; error: string } {
  let shops: unknown;
  let keys: unknown;
  try {
    shops = JSON.parse(shopsJson);
    keys = JSON.parse(keysJson);
  } catch {
    return { ok: false, error: 'PAYME_SHOPS and PAYME_KEYS must be JSON' };
  }
  const s = parsePaymeShops(JSON.stringify(shops));
  if (!s.ok) return { ok: false, error: `PAYME_SHOPS ${s.error}` };
  const k = z.record(z.string(), z.string().min(8, { error: 'must be at least 8 characters' })).safeParse(keys);
  if (!k.success)
    return { ok: false, error: `PAYME_KEYS ${k.error.issues[0].path.join('.')} ${k.error.issues[0].message}` };
  const missing = s.value.find((x) => !k.data[x.merchantId]);
  if (missing) return { ok: false, error: `PAYME_KEYS has no key for merchant ${missing.merchantId} of PAYME_SHOPS` };
  return { ok: true, shops: s.value, keys: k.data };
}

/** `PAYME_KEYS` alone (the sandbox's simulator signs with them): merchant id → key; an error never shows a key. */
export function parsePaymeKeys(
  keysJson: string,
): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
  let keys: unknown;
  try {
    keys = JSON.parse(keysJson);
  } catch {
    return { ok: false, error: 'must be JSON: {"<merchant id>": "<key>", …}' };
  }
  const k = z
    .record(
      z.string().regex(/^[0-9a-f]{24}$/, { error: 'must be the 24 hex digits of a Payme merchant id' }),
      z.string().min(8, { error: 'must be at least 8 characters' }),
    )
    .safeParse(keys);
  if (!k.success)
    return { ok: false, error: `${k.error.issues[0].path.join('.') || '(keys)'} ${k.error.issues[0].message}` };
  return { ok: true, value: k.data };
}
