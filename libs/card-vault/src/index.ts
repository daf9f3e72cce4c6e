export * from './envelope';
export * from './card-vault-config';
export * from './card-vault';
export * from './shop-secret';
