import { Message, Producer, ProducerBatch } from 'kafkajs';
import { BatchingSender } from './batching-sender';

/** A producer double that records each produce request and lets the test decide when it is acked. */
function fakeProducer() {
  const requests: { batch: ProducerBatch; ack: () => void; fail: (e: Error) => void }[] = [];
  const producer = {
    sendBatch: (batch: ProducerBatch) =>
      new Promise((resolve, reject) => requests.push({ batch, ack: () => resolve([]), fail: reject })),
  } as unknown as Producer;
  return { producer, requests };
}

const msg = (v: string): Message => ({ key: v, value: v });
const tick = () => new Promise((r) => setImmediate(r));
const values = (batch: ProducerBatch) => batch.topicMessages!.map((t) => [t.topic, t.messages.map((m) => m.value)]);

describe('BatchingSender', () => {
  it('when nothing is in flight, then a send leaves at once in a request of its own', async () => {
    const { producer, requests } = fakeProducer();
    const sender = new BatchingSender(() => producer);
    const sent = sender.send('t', [msg('a')]);
    await tick();
    expect(requests).toHaveLength(1);
    expect(values(requests[0].batch)).toEqual([['t', ['a']]]);
    expect(requests[0].batch.acks).toBe(-1);
    requests[0].ack();
    await expect(sent).resolves.toBeUndefined();
  });

  it('when sends arrive while a request is in flight, then they go together in the next request, in the order asked, grouped by topic', async () => {
    const { producer, requests } = fakeProducer();
    const sender = new BatchingSender(() => producer);
    const first = sender.send('t', [msg('a')]);
    await tick();
    const later = [sender.send('t', [msg('b')]), sender.send('u', [msg('x')]), sender.send('t', [msg('c'), msg('d')])];
    await tick();
    expect(requests).toHaveLength(1); // one in flight at a time
    requests[0].ack();
    await first;
    await tick();
    expect(requests).toHaveLength(2);
    expect(values(requests[1].batch)).toEqual([
      ['t', ['b', 'c', 'd']],
      ['u', ['x']],
    ]);
    let settled = false;
    void Promise.all(later).then(() => (settled = true));
    await tick();
    expect(settled).toBe(false); // not acked yet
    requests[1].ack();
    await Promise.all(later);
  });

  it('when a request fails, then every send it carried rejects with the error and later sends still go out', async () => {
    const { producer, requests } = fakeProducer();
    const sender = new BatchingSender(() => producer);
    const first = sender.send('t', [msg('a')]);
    await tick();
    const second = [sender.send('t', [msg('b')]), sender.send('t', [msg('c')])];
    requests[0].ack();
    await first;
    await tick();
    requests[1].fail(new Error('broker gone'));
    await expect(second[0]).rejects.toThrow('broker gone');
    await expect(second[1]).rejects.toThrow('broker gone');
    const third = sender.send('t', [msg('d')]);
    await tick();
    expect(values(requests[2].batch)).toEqual([['t', ['d']]]);
    requests[2].ack();
    await expect(third).resolves.toBeUndefined();
  });

  it('when more is queued than one request may carry, then it is split at send boundaries, oldest first', async () => {
    const { producer, requests } = fakeProducer();
    const sender = new BatchingSender(() => producer, 3);
    const first = sender.send('t', [msg('a')]);
    await tick();
    const rest = [
      sender.send('t', [msg('b'), msg('c')]),
      sender.send('t', [msg('d'), msg('e')]),
      sender.send('t', [msg('f')]),
    ];
    requests[0].ack();
    await first;
    await tick();
    expect(values(requests[1].batch)).toEqual([['t', ['b', 'c']]]);
    requests[1].ack();
    await rest[0];
    await tick();
    expect(values(requests[2].batch)).toEqual([['t', ['d', 'e', 'f']]]);
    requests[2].ack();
    await Promise.all(rest);
  });

  it('when the producer is not connected, then the send rejects', async () => {
    const sender = new BatchingSender(() => undefined);
    await expect(sender.send('t', [msg('a')])).rejects.toThrow('producer not connected');
  });
});
