/** Examples of the operator route that rotates a shop's callback secret. */

export const rotateCallbackSecretExample = { overlapHours: 24 };

/** The new secret is shown this once; the old one keeps signing callbacks until `previousSecretExpiresAt`. */
export interface RotatedCallbackSecretView {
  shopId: string;
  callbackSecret: string;
  previousSecretExpiresAt: string;
}

export const rotatedCallbackSecretExample: RotatedCallbackSecretView = {
  shopId: '3f2c8a4e-1b7d-4e9a-8c6f-5d4b3a291e0f',
  callbackSecret: 'whsec_shown-once-store-it-safely-000000000000000',
  previousSecretExpiresAt: '2026-11-25T19:30:00.000Z',
};
