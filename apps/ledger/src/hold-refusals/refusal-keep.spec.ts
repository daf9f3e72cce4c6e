import { COMMAND_TOPIC_CONFIG, isCommandTopic, topicSpecs } from '@payments/contracts';
import { EnvReader } from '@payments/platform';
import { loadLedgerConfig } from '../config';

/**
 * Decisions 356 and 359: a refused hold's answer must outlive every command that can ask for it
 * again, so the ledger keeps it longer than a commands topic keeps a message: its retention plus
 * one segment (Kafka deletes whole segments).
 */
describe('refusals are kept longer than a command stays readable', () => {
  const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', KAFKA_BROKERS: '127.0.0.1:9092' };

  it('when the commands topics keep their messages as their specs say, then the default keep outlives them', () => {
    const readable = Number(COMMAND_TOPIC_CONFIG['retention.ms']) + Number(COMMAND_TOPIC_CONFIG['segment.ms']);
    expect(readable).toBe(8 * 86_400_000);
    expect(loadLedgerConfig(new EnvReader(base)).holdRefusalKeepMs).toBeGreaterThan(readable);
  });

  it('when a contract topic carries commands, then it has that retention; events, replies and dead letters do not', () => {
    const specs = topicSpecs();
    const commands = specs.filter((s) => isCommandTopic(s.name)).map((s) => s.name);
    expect([...commands].sort()).toEqual(
      [
        'ledger.commands',
        'ledger.ops-commands',
        'merchant-callbacks.commands',
        'merchant-callbacks.ops-commands',
        'methods.ops-commands',
        'methods.payer-commands',
        'orders.commands',
        'orders.ops-commands',
        'orders.payer-commands',
        'orders.provider-commands',
        'p2p.commands',
        'p2p.ops-commands',
        'payouts.commands',
        'payouts.ops-commands',
        'payouts.payer-commands',
      ].sort(),
    );
    for (const spec of specs)
      expect({ topic: spec.name, config: spec.config }).toEqual({
        topic: spec.name,
        config: commands.includes(spec.name)
          ? COMMAND_TOPIC_CONFIG
          : spec.name === 'shops.settings'
            ? { 'cleanup.policy': 'compact' }
            : undefined,
      });
  });
});
