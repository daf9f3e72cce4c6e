/** Examples of the operator card routes in the OpenAPI document. */

/** What the erasure route answers: the token and when; nothing of its number stays (decision 259). */
export interface ErasedCardView {
  token: string;
  erased: true;
  erasedAt: string;
}

export const erasedCardExample: ErasedCardView = {
  token: 'card_6f1c2b9e-3d4a-4e5f-9a8b-7c6d5e4f3a2b',
  erased: true,
  erasedAt: '2026-11-24T19:30:00.000Z',
};
