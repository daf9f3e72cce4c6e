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
