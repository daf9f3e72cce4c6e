export * from './transfer.entity';
export * from './transfer-kind';
export * from './transfer-config';
export * from './transfer.module';
export * from './transfer-service';
export { TransferDispatcher, TransferDispatcherOptions } from './transfer-dispatcher.service';
export { TransferWrites } from './transfer-writes';
export * from './transfer-funds';
