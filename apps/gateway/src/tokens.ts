export const REQUEST_CLIENT = Symbol('REQUEST_CLIENT');
export const GATEWAY_OUTBOX = Symbol('GATEWAY_OUTBOX');
export const CARD_VAULT = Symbol('CARD_VAULT');
export const RATE_LIMITER = Symbol('RATE_LIMITER');
