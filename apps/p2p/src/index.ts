export * from './config';
export * from './p2p.app';
export { p2pKind } from './p2p.kind';
