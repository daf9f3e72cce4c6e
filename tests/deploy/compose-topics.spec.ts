import { readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { healthTopicSpec, replyTopicSpecs, topicSpecs } from '@payments/contracts';

const ROOT = path.join(__dirname, '..', '..');

/** The `create <topic> <partitions> [--config k=v …]` lines of the compose file's kafka-init. */
function composeTopics(): { name: string; partitions: number; config?: Record<string, string> }[] {
  const compose = load(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { command?: string[] }>;
  };
  const script = compose.services['kafka-init'].command!.join('\n');
  return [...script.matchAll(/^\s*create (\S+) (\d+)((?: --config \S+)*)\s*$/gm)].map(([, name, partitions, flags]) => {
    const config = Object.fromEntries(
      [...flags.matchAll(/--config ([^=\s]+)=(\S+)/g)].map(([, key, value]) => [key, value]),
    );
    return { name, partitions: Number(partitions), ...(Object.keys(config).length ? { config } : {}) };
  });
}

describe("docker-compose.yml's kafka-init", () => {
  it('when it runs, then it creates every contract, reply and health topic as its spec says, and no other (the broker creates none itself)', () => {
    const specs = [...topicSpecs(), ...replyTopicSpecs(), healthTopicSpec()].map((s) => ({
      name: s.name,
      partitions: s.partitions,
      ...(s.config ? { config: { ...s.config } } : {}),
    }));
    expect(composeTopics()).toEqual(specs);
  });
});
