import { MessageHandler } from '@nestjs/microservices';
import { KafkaMessage } from 'kafkajs';
import { Envelope, EnvelopeParse, parseEnvelope, ReplyHeaders } from '@payments/contracts';
import { onItsPath } from './audience-guard';
import { header } from './handler-reply';

export interface BatchItem {
  message: KafkaMessage;
  env: Envelope;
}

/** A run of a partition's batch: for one batch handler in one call, or message by message. */
export type Segment =
  { kind: 'single'; messages: KafkaMessage[] } | { kind: 'batch'; handler: MessageHandler; items: BatchItem[] };

/**
 * Cuts a partition's batch into runs of one batch handler's messages and runs of the rest, in
 * offset order. A message waiting for a reply, or off its audience's path, is never batched. Each
 * message's envelope is parsed once, here, and kept in `parsed` for the per-message path.
 */
export function segments(
  contractTopic: string,
  messages: KafkaMessage[],
  handlerFor: (type: string) => MessageHandler | undefined,
  parsed: WeakMap<KafkaMessage, EnvelopeParse>,
): Segment[] {
  const runs: Segment[] = [];
  for (const message of messages) {
    let item: BatchItem | undefined;
    let handler: MessageHandler | undefined;
    const parse = parseEnvelope(message.value);
    parsed.set(message, parse);
    if (!header(message.headers, ReplyHeaders.replyTopic)) {
      handler = parse.kind === 'ok' ? handlerFor(parse.envelope.type) : undefined;
      const batch = parse.kind === 'ok' && handler?.extras?.batch === true;
      if (batch && onItsPath(contractTopic, parse.envelope.type)) item = { message, env: parse.envelope };
    }
    const tail = runs[runs.length - 1];
    if (item) {
      if (tail?.kind === 'batch' && tail.handler === handler) tail.items.push(item);
      else runs.push({ kind: 'batch', handler: handler!, items: [item] });
    } else if (tail?.kind === 'single') tail.messages.push(message);
    else runs.push({ kind: 'single', messages: [message] });
  }
  return runs;
}
