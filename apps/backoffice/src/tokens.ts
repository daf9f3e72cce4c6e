export const REQUEST_CLIENT = Symbol('REQUEST_CLIENT');
/** The backoffice's own outbox: dead letters are redriven through it. */
export const BACKOFFICE_OUTBOX = Symbol('BACKOFFICE_OUTBOX');
export const CARD_VAULT = Symbol('CARD_VAULT');
