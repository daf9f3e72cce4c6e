/** Examples of the operator card routes in the OpenAPI document. */

/** What the erasure route answers: the token and what stays of the card; its number is gone. */
export interface ErasedCardView {
  token: string;
  bin: string;
  last4: string;
  erased: true;
  erasedAt: string;
}

export const erasedCardExample: ErasedCardView = {
  token: 'card_6f1c2b9e-3d4a-4e5f-9a8b-7c6d5e4f3a2b',
  bin: '860012',
  last4: '9012',
  erased: true,
  erasedAt: '2026-11-24T19:30:00.000Z',
};
