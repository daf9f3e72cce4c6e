/**
 * The sandbox provider signs its callbacks with the scheme we also use towards merchants; it lives
 * in one place (libs/callback-signature) so the two can never drift apart.
 */
export { sign, verifySignature, SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS } from '@payments/callback-signature';
export type { SignatureCheck } from '@payments/callback-signature';
