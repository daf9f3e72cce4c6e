/**
 * The sandbox provider signs its callbacks with the scheme we also use towards merchants; it lives
 * in one place (libs/callback-signature) so the two can never drift apart.
 */
export { sign, verifySignature, SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS } from '@payments/callback-signature';
export type { SignatureCheck } from '@payments/callback-signature';

/**
 * The sandbox secret this repository once documented and fell back to. Public, so both ends refuse
 * it at boot; `npm start` generates a secret into `.run/` instead.
 */
export const PUBLIC_SANDBOX_SECRETS: readonly string[] = ['sandbox-local-secret'];
