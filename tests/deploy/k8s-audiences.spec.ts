import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import {
  Audience,
  audienceRequester,
  commandTopic,
  commandTopicAudience,
  CommandServices,
  serviceAudiences,
  serviceCommandTopics,
} from '@payments/contracts';

/**
 * Decision 263 in the Kafka ACLs: each requester writes only its own audience's command topics, and
 * each domain service reads all of its service's (k8s/infra/kafka-users.yaml).
 */
interface KafkaUser {
  kind: string;
  metadata: { name: string };
  spec: { authorization?: { acls: { resource: { type: string; name: string }; operations: string[] }[] } };
}

const usersFile = readFileSync(path.join(__dirname, '..', '..', 'k8s', 'infra', 'kafka-users.yaml'), 'utf8');
const manifests = (_file: string) => loadAll(usersFile) as KafkaUser[];
const manifest = (_file: string, kind: string, name: string): KafkaUser => {
  const found = manifests(_file).find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`k8s/infra/kafka-users.yaml: no ${kind} named ${name}`);
  return found;
};

describe('command topics per audience in k8s (decision 263)', () => {
  const users = manifests('infra/kafka-users.yaml').filter((m) => m.kind === 'KafkaUser');
  const audienceOf: Record<string, Audience> = Object.fromEntries(
    Object.entries(audienceRequester).map(([audience, requester]) => [requester, audience as Audience]),
  );
  const writesOf = (user: string) =>
    manifest('infra/kafka-users.yaml', 'KafkaUser', user)
      .spec.authorization!.acls.filter((a) => a.resource.type === 'topic' && a.operations.includes('Write'))
      .map((a) => a.resource.name);

  it.each(Object.values(audienceRequester))(
    "when %s writes a command topic, then it is one of its own audience's, and it may write each of them",
    (user) => {
      const own = CommandServices.flatMap((s) =>
        serviceAudiences(s)
          .filter((a) => a === audienceOf[user])
          .map((a) => commandTopic(s, a)),
      );
      // The backoffice redrives dead letters to the topic they came from: the merchants' command
      // topics stay writable for it until redrive goes through the operators' path (issue 28).
      const redrive = user === 'backoffice' ? CommandServices.map((s) => commandTopic(s, 'merchant')) : [];
      const commandWrites = writesOf(user).filter((t) => commandTopicAudience(t));
      for (const topic of commandWrites)
        expect({ user, topic, own: own.includes(topic) || redrive.includes(topic) }).toEqual({
          user,
          topic,
          own: true,
        });
      expect(commandWrites).toEqual(expect.arrayContaining(own));
    },
  );

  it('when no requester is named, then no other user writes any command topic of an audience', () => {
    for (const u of users.filter((m) => !Object.values<string>(audienceRequester).includes(m.metadata.name)))
      expect({
        user: u.metadata.name,
        writes: writesOf(u.metadata.name).filter((t) => commandTopicAudience(t)),
      }).toEqual({
        user: u.metadata.name,
        writes: [],
      });
  });

  it('when a consumer reads its service, then it reads every audience topic of it and may dead-letter each', () => {
    for (const service of CommandServices) {
      const consumer = manifest('infra/kafka-users.yaml', 'KafkaUser', service).spec.authorization!.acls;
      for (const topic of serviceCommandTopics(service)) {
        expect(consumer).toContainEqual(
          expect.objectContaining({
            resource: expect.objectContaining({ name: topic }),
            operations: ['Read', 'Describe'],
          }),
        );
        expect(consumer).toContainEqual(
          expect.objectContaining({
            resource: expect.objectContaining({ name: `${topic}.dlq` }),
            operations: ['Write', 'Describe'],
          }),
        );
      }
    }
  });
  it("when operators set the ledger's fees, rates and delays, then only the backoffice writes ledger.ops-commands, the ledger reads it and answers on backoffice.replies (decision 303)", () => {
    expect(serviceCommandTopics('ledger')).toEqual(['ledger.ops-commands']);
    const acls = (user: string) => manifest('infra/kafka-users.yaml', 'KafkaUser', user).spec.authorization!.acls;
    const writers = users.filter((u) =>
      acls(u.metadata.name).some((a) => a.resource.name === 'ledger.ops-commands' && a.operations.includes('Write')),
    );
    expect(writers.map((u) => u.metadata.name)).toEqual(['backoffice']);
    expect(acls('ledger')).toContainEqual(
      expect.objectContaining({
        resource: expect.objectContaining({ name: 'backoffice.replies' }),
        operations: ['Write', 'Describe'],
      }),
    );
  });
});
