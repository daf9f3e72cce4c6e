import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboxRelay, OutboxRelayOptions } from './outbox-relay';

export const OUTBOX_RELAY_OPTIONS = Symbol('OUTBOX_RELAY_OPTIONS');
export type OutboxRelayServiceOptions = Omit<OutboxRelayOptions, 'dataSource'>;

/** Runs the service's outbox relay for as long as the app runs. */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly relay: OutboxRelay;

  constructor(
    @Inject(OUTBOX_RELAY_OPTIONS) opts: OutboxRelayServiceOptions,
    @InjectDataSource() dataSource: DataSource,
  ) {
    this.relay = new OutboxRelay({ ...opts, dataSource });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}
