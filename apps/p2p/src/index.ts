export * from './config';
export * from './p2p.app';
export type { P2pModuleOptions } from './p2p.module';
export * from './tokens';
export { P2pDispatcher } from './dispatch-p2p/p2p-dispatcher.service';
