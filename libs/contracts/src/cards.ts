import { z } from 'zod';

/**
 * A card as every service but the vault knows it (docs/security.md): the vault's token, the BIN,
 * the last 4 and the masked number answers show. The number itself never crosses a topic.
 */
export const cardRef = z
  .object({
    token: z.string().regex(/^card_[0-9a-f-]{36}$/, { error: 'must be a card vault token' }),
    bin: z.string().regex(/^[0-9]{6}$/),
    last4: z.string().regex(/^[0-9]{4}$/),
    masked: z.string().regex(/^[0-9]{6}\*+[0-9]{4}$/, { error: 'must be a masked card number' }),
  })
  .describe('A card held by the card vault: its token, BIN, last 4 and masked number; never the number');
export type CardRef = z.infer<typeof cardRef>;
