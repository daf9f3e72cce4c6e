import { createHash, randomBytes } from 'node:crypto';
import { OperatorIdentityRoles } from '@payments/contracts';

// One list with the contract that carries an operator on its commands (decision 301).
export const OperatorRoles = OperatorIdentityRoles;
export type OperatorRole = (typeof OperatorRoles)[number];

/** Who is acting: set on the request by OpsAuthGuard, read by the audit interceptor and the console. */
export interface Operator {
  /** `ops-token` for the configured OPS_TOKEN, else the operator's UUID. */
  id: string;
  name: string;
  role: OperatorRole;
}

/** The configured OPS_TOKEN is the first admin (decision 150): it works before any operator exists. */
export const OPS_TOKEN_OPERATOR: Operator = { id: 'ops-token', name: 'OPS_TOKEN', role: 'admin' };

const RANK: Record<OperatorRole, number> = { viewer: 0, operator: 1, admin: 2 };

export function mayAct(role: OperatorRole, required: OperatorRole): boolean {
  return RANK[role] >= RANK[required];
}

const TOKEN_PREFIX = 'op_';

/** A new operator token: shown once, stored only as its hash (256 random bits, so SHA-256 is enough). */
export function generateOperatorToken(): { token: string; hash: string; prefix: string } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashOperatorToken(token), prefix: token.slice(0, 8) };
}

export function hashOperatorToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
