import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Admin } from 'kafkajs';
import { Envelope, okReply, Reply, Topics } from '@payments/contracts';
import type { KafkaConfig } from '@payments/platform';
// Test infrastructure only; the boundary rule has no override for spec files yet.
import { createTestTopics, eventually, testBrokers, testKafka, uniqueName } from '@payments/testing';
import { KafkaTransport } from './kafka-transport';
import { KafkaRequestClient, RequestTimeout } from './request-client';
import { RethrowRpcErrors } from './rethrow-rpc.filter';

interface Echo {
  value: string;
  from: string;
}

@Controller()
class EchoResponder {
  /** Answers a little later for some requests, so replies come back in another order than requests went out. */
  @MessagePattern('test.echo')
  async echo(@Payload() env: Envelope<Echo>): Promise<Reply<Echo>> {
    if (env.payload.value.endsWith('7')) await new Promise((r) => setTimeout(r, 20));
    return okReply({ value: env.payload.value, from: env.payload.from });
  }
}

@Module({ controllers: [EchoResponder] })
class ResponderModule {}

describe('KafkaRequestClient: request-reply over Kafka with several gateway instances on one reply topic', () => {
  const prefix = `${uniqueName('rc')}.`;
  const kafka: KafkaConfig = {
    brokers: testBrokers(),
    clientId: 'request-client-spec',
    topicPrefix: prefix,
    replicationFactor: 1,
  };
  let topics: { deleteAll(): Promise<void> } | undefined;
  let admin: Admin | undefined;
  let responder: INestMicroservice | undefined;
  const clients: KafkaRequestClient[] = [];
  let gatewayA: KafkaRequestClient;
  let gatewayB: KafkaRequestClient;

  beforeAll(async () => {
    topics = await createTestTopics(prefix);
    admin = testKafka('rc-admin').admin();
    await admin.connect();
    const transport = new KafkaTransport({
      kafka,
      groupId: 'echo-responder',
      topics: [Topics.ledgerCommands],
      maxAttempts: 1,
      retryBackoffMs: 10,
    });
    responder = await NestFactory.createMicroservice(ResponderModule, { strategy: transport, logger: false });
    responder.useGlobalFilters(new RethrowRpcErrors());
    await responder.listen();
    await transport.whenJoined();

    gatewayA = new KafkaRequestClient(
      kafka,
      { requester: 'gateway', instanceId: `gw-a-${randomUUID().slice(0, 8)}` },
      15000,
    );
    gatewayB = new KafkaRequestClient(
      kafka,
      { requester: 'gateway', instanceId: `gw-b-${randomUUID().slice(0, 8)}` },
      15000,
    );
    clients.push(gatewayA, gatewayB);
    await Promise.all(clients.map((c) => c.start()));
  });

  afterAll(async () => {
    for (const c of clients) await c.stop();
    await responder?.close();
    await admin?.disconnect();
    await topics?.deleteAll();
  });

  it('when two gateway instances each send 50 requests at once, then every request gets its own reply and none times out', async () => {
    expect(gatewayA.replyTopic).toBe(`${prefix}gateway.replies`);
    expect(gatewayB.replyTopic).toBe(gatewayA.replyTopic);
    expect(gatewayA.groupId).not.toBe(gatewayB.groupId);
    const fire = (client: KafkaRequestClient, from: string) =>
      Array.from({ length: 50 }, (_, i) => {
        const value = `${from}-${i}-${randomUUID()}`;
        return client
          .request<Echo>(Topics.ledgerCommands, `shop-${i % 7}`, 'test.echo', { value, from })
          .then((reply) => ({ sent: value, reply }));
      });
    const results = await Promise.allSettled([...fire(gatewayA, 'a'), ...fire(gatewayB, 'b')]);

    const failures = results
      .filter((r) => r.status === 'rejected')
      .map((r) => String((r as PromiseRejectedResult).reason));
    expect(failures).toEqual([]);
    for (const r of results) {
      const { sent, reply } = (r as PromiseFulfilledResult<{ sent: string; reply: Reply<Echo> }>).value;
      expect(reply).toEqual({ ok: true, result: { value: sent, from: sent.slice(0, 1) } });
    }
  });

  it('when replies were read, then the reply group commits nothing (the broker forgets it once empty)', async () => {
    const value = randomUUID();
    await gatewayA.request<Echo>(Topics.ledgerCommands, 'shop-commit', 'test.echo', { value, from: 'a' });
    await new Promise((r) => setTimeout(r, 1500));
    const [entry] = await admin!.fetchOffsets({ groupId: gatewayA.groupId, topics: [gatewayA.replyTopic] });
    expect(entry.partitions.map((p) => p.offset)).toEqual(entry.partitions.map(() => '-1'));
  });

  it('when a new instance starts after replies were written, then it starts at the end and still gets its own replies', async () => {
    const late = new KafkaRequestClient(
      kafka,
      { requester: 'gateway', instanceId: `gw-late-${randomUUID().slice(0, 8)}` },
      15000,
    );
    clients.push(late);
    await late.start();
    const reply = await late.request<Echo>(Topics.ledgerCommands, 'shop-late', 'test.echo', {
      value: 'late-1',
      from: 'l',
    });
    expect(reply).toEqual({ ok: true, result: { value: 'late-1', from: 'l' } });
  });

  it('when a request goes to a topic nobody consumes, then it rejects with RequestTimeout after timeoutMs', async () => {
    const started = Date.now();
    const outcome = gatewayA.request(
      Topics.payoutsCommands,
      'payout-1',
      'test.echo',
      { value: 'x', from: 'a' },
      { timeoutMs: 1000 },
    );
    await expect(outcome).rejects.toBeInstanceOf(RequestTimeout);
    await expect(outcome).rejects.toThrow('no reply to test.echo within 1000 ms');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(3000);
  });

  it('when the broker has not taken the request by timeoutMs (its send still retrying), then it rejects with RequestTimeout then, and no rejection goes unhandled', async () => {
    // A topic the broker does not have: kafkajs keeps retrying the send, as it does while a broker is down.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const started = Date.now();
      const outcome = gatewayA.request(
        `no-such-topic-${randomUUID().slice(0, 8)}`,
        'key-1',
        'test.echo',
        { value: 'x', from: 'a' },
        { timeoutMs: 1000 },
      );
      await expect(outcome).rejects.toBeInstanceOf(RequestTimeout);
      expect(Date.now() - started).toBeLessThan(3000);
      await new Promise((r) => setTimeout(r, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('when an instance stops, then its waiting requests are rejected, its group is deleted and the shared reply topic stays', async () => {
    const instance = new KafkaRequestClient(
      kafka,
      { requester: 'gateway', instanceId: `gw-c-${randomUUID().slice(0, 8)}` },
      15000,
    );
    clients.push(instance);
    await instance.start();
    expect(await admin!.listTopics()).toContain(instance.replyTopic);
    const ok = await instance.request<Echo>(Topics.ledgerCommands, 'shop-1', 'test.echo', { value: 'c-1', from: 'c' });
    expect(ok).toEqual({ ok: true, result: { value: 'c-1', from: 'c' } });

    const waiting = instance.request(
      Topics.payoutsCommands,
      'payout-2',
      'test.echo',
      { value: 'x', from: 'c' },
      { timeoutMs: 10000 },
    );
    const rejected = expect(waiting).rejects.toThrow('gateway is shutting down');
    await new Promise((r) => setTimeout(r, 100));
    await instance.stop();
    await rejected;
    await eventually(
      async () => {
        const { groups } = await admin!.listGroups();
        return groups.some((g) => g.groupId === instance.groupId) ? undefined : true;
      },
      10000,
      'the group of the stopped instance gone',
    );
    expect(await admin!.listTopics()).toContain(instance.replyTopic);
    // The other instances on the topic are unaffected.
    const after = await gatewayB.request<Echo>(Topics.ledgerCommands, 'shop-1', 'test.echo', {
      value: 'b-after',
      from: 'b',
    });
    expect(after).toEqual({ ok: true, result: { value: 'b-after', from: 'b' } });
    await expect(
      instance.request(Topics.ledgerCommands, 'shop-1', 'test.echo', { value: 'late', from: 'c' }),
    ).rejects.toThrow('request client not started');
  });

  it('when the shared reply topic is deleted by hand, then a request times out, the client creates it again, and requests are answered again', async () => {
    const instance = new KafkaRequestClient(
      kafka,
      { requester: 'checkout', instanceId: `co-${randomUUID().slice(0, 8)}` },
      15000,
    );
    clients.push(instance);
    await instance.start();
    const ask = (value: string, timeoutMs = 3000) =>
      instance.request<Echo>(Topics.ledgerCommands, 'shop-x', 'test.echo', { value, from: 'x' }, { timeoutMs });
    expect(await ask('before')).toEqual({ ok: true, result: { value: 'before', from: 'x' } });
    await admin!.deleteTopics({ topics: [instance.replyTopic] });
    await eventually(
      async () => ((await admin!.listTopics()).includes(instance.replyTopic) ? undefined : true),
      20_000,
      'the deletion',
    );
    const answered = await eventually(
      async () => {
        try {
          return await ask(`after-${randomUUID()}`);
        } catch (err) {
          if (err instanceof RequestTimeout) return undefined;
          throw err;
        }
      },
      90_000,
      'a reply again',
    );
    expect(answered.ok).toBe(true);
    expect(await admin!.listTopics()).toContain(instance.replyTopic);
  }, 120_000);
});
