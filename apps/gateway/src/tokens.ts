export const REQUEST_CLIENT = Symbol('REQUEST_CLIENT');
