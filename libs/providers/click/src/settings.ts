import { z } from 'zod';
import type { SettingsParse } from '@payments/providers/core';

const id = z.string().regex(/^[0-9]{1,20}$/, { error: 'must be the number Click gave (digits only)' });

/** A shop's Click account: the service and merchant ids of its cabinet, and the secret key. */
const clickShopSettings = z
  .object({
    serviceId: id,
    merchantId: id,
    secretKey: z
      .string()
      .min(8, { error: 'must be at least 8 characters' })
      .max(256)
      .optional()
      .describe('The SECRET_KEY of the Click cabinet; a secret, only callbacks-ingest holds it'),
  })
  .strict();
export type ClickShopSettings = z.infer<typeof clickShopSettings>;

export function parseClickSettings(input: unknown): SettingsParse<ClickShopSettings> {
  const r = clickShopSettings.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    errors: r.error.issues.map((i) => ({
      path: i.code === 'unrecognized_keys' ? i.keys.join(', ') : i.path.join('.') || '(settings)',
      message: i.message,
    })),
  };
}

/** Parses `CLICK_SECRET_KEYS` (JSON object: service id → secret key). */
export function parseClickSecretKeys(
  json: string,
): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { ok: false, error: 'must be JSON: {"<serviceId>": "<secret key>", …}' };
  }
  const r = z.record(id, z.string().min(8, { error: 'must be at least 8 characters' }).max(256)).safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    // Never the value: it is a secret.
    return { ok: false, error: `${i.path.join('.') || '(keys)'} ${i.message}` };
  }
  return { ok: true, value: r.data };
}
