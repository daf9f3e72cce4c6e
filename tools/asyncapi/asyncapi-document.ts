import { createHash } from 'node:crypto';
import * as contracts from '@payments/contracts';
import {
  envelopeSchema,
  replyError,
  ReplyHeaders,
  replySchema,
  TopicContract,
  topicContracts,
  topicSpecs,
  ReplyTopics,
  replyTopicSpecs,
} from '@payments/contracts';
import { dump } from 'js-yaml';
import { z } from 'zod';
import { keyExamples, payloadExamples, refusalExample, resultExamples } from './examples';

/**
 * Builds docs/asyncapi.yaml (AsyncAPI 3.0) from libs/contracts: the topics of `topicSpecs()`, what
 * travels on each (`topicContracts`), the envelope and every payload schema as zod turns them into
 * JSON Schema, and the examples of ./examples.ts. tools/asyncapi/asyncapi.spec.ts fails when the
 * committed document is not what this builds (UPDATE_ASYNCAPI=1 rewrites it).
 */

const KAFKA_BINDING = '0.5.0';
const REPLY_CHANNEL = 'gatewayReplies';

type Schema = Record<string, unknown>;

/**
 * The JSON Schema of a zod schema as producers write it (`io: 'output'`): what the TypeScript types
 * the services build messages with allow, objects closed as zod's parse leaves them.
 */
function jsonSchema(schema: z.ZodType): Schema {
  const out = z.toJSONSchema(schema, { target: 'draft-7', io: 'output' }) as Schema;
  delete out.$schema;
  return out;
}

/** Component names of the payload schemas: the names libs/contracts exports them under. */
const schemaNames = new Map<unknown, string>();
for (const [name, value] of Object.entries(contracts)) {
  if (value instanceof z.ZodType && !schemaNames.has(value)) schemaNames.set(value, pascal(name));
}

function nameOf(schema: z.ZodType, what: string): string {
  const name = schemaNames.get(schema);
  if (!name) throw new Error(`${what}: its schema is not exported by libs/contracts, so it has no name`);
  return name;
}

/** `order.status_changed` → `orderStatusChanged`; `orders.commands` → `ordersCommands`. */
function camel(dotted: string): string {
  return dotted.replace(/[._-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `orderCreate` → `OrderCreate`. */
function pascal(name: string): string {
  return name[0].toUpperCase() + name.slice(1);
}

/** A stable UUID per name, so that the examples do not change from one generation to the next. */
function exampleUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const ref = (pointer: string) => ({ $ref: pointer });

/** The envelope with `type` fixed and `payload` the message's own schema. */
function envelopeOf(type: string, payloadRef: Schema): Schema {
  const env = jsonSchema(envelopeSchema) as { properties: Record<string, Schema> } & Schema;
  return {
    ...env,
    description: `The envelope of each ${type} message`,
    properties: {
      ...env.properties,
      type: { type: 'string', const: type },
      version: { type: 'integer', const: 1, description: 'The version of the payload schema' },
      payload: payloadRef,
    },
  };
}

function exampleEnvelope(type: string, payload: unknown, causedBy?: string): Schema {
  const eventId = exampleUuid(`${type}:${causedBy ?? ''}`);
  return {
    eventId,
    type,
    version: 1,
    occurredAt: '2026-11-24T10:15:30.000Z',
    correlationId: causedBy ?? eventId,
    causationId: causedBy ?? null,
    // Through JSON, as on the wire: members left undefined are not there.
    payload: JSON.parse(JSON.stringify(payload)),
  };
}

function requireExample(examples: Record<string, unknown>, type: string, what: string): unknown {
  if (!(type in examples)) throw new Error(`tools/asyncapi/examples.ts has no ${what} example for ${type}`);
  return examples[type];
}

const replyTopicHeader = {
  type: 'object',
  properties: {
    [ReplyHeaders.replyTopic]: {
      type: 'string',
      enum: Object.values(ReplyTopics),
      description:
        'The reply topic of the requester that waits (shared by its instances); a request naming another topic is handled and its reply dropped',
    },
    [ReplyHeaders.replyBy]: {
      type: 'string',
      pattern: '^[0-9]+$',
      description:
        'When the requester stops waiting (epoch milliseconds): a reply that could not be sent by then is dropped; without it, a minute after occurredAt',
    },
  },
  required: [ReplyHeaders.replyTopic],
};

const correlationHeader = {
  type: 'object',
  properties: {
    [ReplyHeaders.correlationId]: {
      type: 'string',
      format: 'uuid',
      description: 'The eventId of the request this reply answers',
    },
  },
  required: [ReplyHeaders.correlationId],
};

function deadLetterHeaders(source: string, consumedBy: readonly string[]): Schema {
  const text = (description: string) => ({ type: 'string', description });
  return {
    type: 'object',
    properties: {
      'dlq-error': text('Why the message could not be processed (at most 2,000 characters)'),
      'dlq-original-topic': { type: 'string', const: source, description: 'The topic the message came from' },
      'dlq-original-partition': { type: 'string', pattern: '^[0-9]+$', description: 'Its partition there' },
      'dlq-original-offset': { type: 'string', pattern: '^[0-9]+$', description: 'Its offset there' },
      'dlq-consumer-group': text(
        `The consumer group that gave up on it${consumedBy.length ? ` (${consumedBy.join(', ')})` : ''}`,
      ),
      'dlq-attempts': {
        type: 'string',
        pattern: '^[0-9]+$',
        description: 'How many times its handler ran (0: refused before any, e.g. an invalid envelope)',
      },
      'dlq-at': { type: 'string', format: 'date-time', description: 'When it was dead-lettered' },
    },
    required: [
      'dlq-error',
      'dlq-original-topic',
      'dlq-original-partition',
      'dlq-original-offset',
      'dlq-consumer-group',
      'dlq-attempts',
      'dlq-at',
    ],
    additionalProperties: { type: 'string', description: 'The headers the message came with, kept' },
  };
}

export function buildAsyncApiDocument(version: string): Record<string, unknown> {
  const channels: Schema = {};
  const operations: Schema = {};
  const messages: Schema = {};
  const schemas: Schema = { Envelope: jsonSchema(envelopeSchema), ReplyError: jsonSchema(replyError) };
  const replyMessages: Schema = {};
  const byTopic = new Map<string, TopicContract>(topicContracts.map((c) => [c.topic, c]));

  const addSchema = (schema: z.ZodType, what: string) => {
    const name = nameOf(schema, what);
    schemas[name] ??= jsonSchema(schema);
    return ref(`#/components/schemas/${name}`);
  };

  for (const spec of topicSpecs()) {
    const dead = spec.name.endsWith('.dlq');
    const source = dead ? spec.name.slice(0, -'.dlq'.length) : spec.name;
    const contract = byTopic.get(source);
    if (!contract)
      throw new Error(`${source} is in topicSpecs() but not in topicContracts (libs/contracts/src/catalog.ts)`);
    const channelId = camel(spec.name);
    const kafka = {
      topic: spec.name,
      partitions: spec.partitions,
      ...(spec.config ? { topicConfiguration: configOf(spec.config) } : {}),
      bindingVersion: KAFKA_BINDING,
    };

    if (dead) {
      const messageId = `${camel(source)}DeadLetter`;
      messages[messageId] = {
        name: `${source}.dead-letter`,
        title: `A dead letter of ${source}`,
        summary: `A message of ${source} that could not be processed, unchanged, with why in its headers`,
        contentType: 'application/json',
        headers: deadLetterHeaders(source, contract.consumerGroups ?? contract.consumedBy),
        payload: {
          description:
            'The value exactly as it came on the source topic: usually one of its envelopes, but whatever could not be read (it may not even be JSON)',
        },
        bindings: { kafka: { key: jsonSchema(contract.keySchema), bindingVersion: KAFKA_BINDING } },
        examples: [
          {
            name: 'invalid-payload',
            summary: `Key ${keyExamples[source]} (${contract.messages[0].type} with a payload its consumer refused)`,
            headers: {
              ...(contract.messages[0].reply ? { [ReplyHeaders.replyTopic]: ReplyTopics.gateway } : {}),
              'dlq-error': `${contract.messages[0].type}: payload.shopId must be a UUID`,
              'dlq-original-topic': source,
              'dlq-original-partition': '3',
              'dlq-original-offset': '1042',
              'dlq-consumer-group': (contract.consumerGroups ?? contract.consumedBy)[0] ?? 'audit',
              'dlq-attempts': '1',
              'dlq-at': '2026-11-24T10:15:31.004Z',
            },
            payload: exampleEnvelope(contract.messages[0].type, {
              ...(requireExample(payloadExamples, contract.messages[0].type, 'payload') as object),
              shopId: 'shop-1',
            }),
          },
        ],
      };
      channels[channelId] = {
        address: spec.name,
        title: spec.name,
        description: `Dead letters of ${source}: each message its consumer could not process after bounded retries (or at once, when it is invalid), never silently dropped.`,
        messages: { [messageId]: ref(`#/components/messages/${messageId}`) },
        bindings: { kafka },
      };
      operations[`deadLetter${pascal(camel(source))}`] = {
        action: 'send',
        channel: ref(`#/channels/${channelId}`),
        title: `Dead-letter a message of ${source}`,
        messages: [ref(`#/channels/${channelId}/messages/${messageId}`)],
      };
      continue;
    }

    const channelMessages: Schema = {};
    const operationMessages: Schema[] = [];
    const replies: Schema[] = [];
    for (const m of contract.messages) {
      const messageId = camel(m.type);
      const payloadRef = addSchema(m.payload, m.type);
      channelMessages[messageId] = ref(`#/components/messages/${messageId}`);
      operationMessages.push(ref(`#/channels/${channelId}/messages/${messageId}`));
      const example = exampleEnvelope(m.type, requireExample(payloadExamples, m.type, 'payload'));
      messages[messageId] = {
        name: m.type,
        title: m.type,
        summary: m.summary,
        description: m.payload.description,
        contentType: 'application/json',
        ...(m.reply ? { headers: replyTopicHeader } : {}),
        payload: envelopeOf(m.type, payloadRef),
        correlationId: { location: '$message.payload#/correlationId' },
        bindings: { kafka: { key: jsonSchema(contract.keySchema), bindingVersion: KAFKA_BINDING } },
        examples: [
          {
            name: m.type,
            summary: `Key ${keyExamples[source]}`,
            ...(m.reply ? { headers: { [ReplyHeaders.replyTopic]: ReplyTopics.gateway } } : {}),
            payload: example,
          },
        ],
      };
      if (!m.reply) continue;
      const replyType = `${m.type}.reply`;
      const replyId = `${messageId}Reply`;
      const resultRef = addSchema(m.reply, `${m.type} reply`);
      const replyPayload = jsonSchema(replySchema(z.unknown()));
      // The union as zod writes it, with the result's and the refusal's schemas by reference.
      const [okBranch, refusedBranch] = (replyPayload.oneOf ?? replyPayload.anyOf) as {
        properties: Schema;
        required: string[];
      }[];
      okBranch.properties.result = resultRef;
      okBranch.required = ['ok', 'result'];
      refusedBranch.properties.error = ref('#/components/schemas/ReplyError');
      schemas[`${pascal(messageId)}Reply`] = replyPayload;
      const cause = example.eventId as string;
      messages[replyId] = {
        name: replyType,
        title: replyType,
        summary: `The answer to ${m.type}: the result, or the business refusal`,
        contentType: 'application/json',
        headers: correlationHeader,
        payload: envelopeOf(replyType, ref(`#/components/schemas/${pascal(messageId)}Reply`)),
        correlationId: { location: `$message.header#/${ReplyHeaders.correlationId}` },
        bindings: {
          kafka: {
            key: { type: 'string', format: 'uuid', description: 'The eventId of the request' },
            bindingVersion: KAFKA_BINDING,
          },
        },
        examples: [
          {
            name: `${replyType}-ok`,
            summary: `Key ${cause}`,
            headers: { [ReplyHeaders.correlationId]: cause },
            payload: exampleEnvelope(
              replyType,
              { ok: true, result: requireExample(resultExamples, m.type, 'reply result') },
              cause,
            ),
          },
          {
            name: `${replyType}-refused`,
            summary: `Key ${cause}`,
            headers: { [ReplyHeaders.correlationId]: cause },
            payload: exampleEnvelope(replyType, { ok: false, error: refusalExample }, cause),
          },
        ],
      };
      replyMessages[replyId] = ref(`#/components/messages/${replyId}`);
      replies.push(ref(`#/channels/${REPLY_CHANNEL}/messages/${replyId}`));
    }
    channels[channelId] = {
      address: spec.name,
      title: spec.name,
      description: `${contract.description}\n\nKey: ${contract.key}. Published by ${contract.publishedBy.join(', ')}; consumed by ${contract.consumedBy.join(', ') || 'nobody yet'}.`,
      messages: channelMessages,
      bindings: { kafka },
    };
    const [first] = contract.publishedBy;
    operations[`${camel(first)}Sends${pascal(channelId)}`] = {
      action: 'send',
      channel: ref(`#/channels/${channelId}`),
      title: `${contract.publishedBy.join(', ')} publish${contract.publishedBy.length > 1 ? '' : 'es'} on ${spec.name}`,
      messages: operationMessages,
      ...(replies.length
        ? {
            reply: {
              address: { location: `$message.header#/${ReplyHeaders.replyTopic}` },
              channel: ref(`#/channels/${REPLY_CHANNEL}`),
              messages: replies,
            },
          }
        : {}),
    };
    for (const consumer of contract.consumedBy) {
      operations[`${camel(consumer)}Receives${pascal(channelId)}`] = {
        action: 'receive',
        channel: ref(`#/channels/${channelId}`),
        title: `${consumer} consumes ${spec.name}`,
        messages: operationMessages,
      };
    }
  }

  channels[REPLY_CHANNEL] = {
    address: '{requester}.replies',
    title: Object.values(ReplyTopics).join(', '),
    description:
      "The replies to one requester's requests (the gateway, checkout): one topic per requester, shared by its instances, each of which reads all of it with a consumer group of its own (`<topic>.<instance id>`, committing nothing) and keeps the replies it waits for. Never deleted by an instance that stops. The key and the correlation-id header are the request's eventId.",
    parameters: {
      requester: {
        enum: Object.keys(ReplyTopics),
        description: 'Who asked: the gateway (merchants, operators) or checkout (the hosted pages)',
      },
    },
    messages: replyMessages,
    bindings: {
      kafka: {
        partitions: replyTopicSpecs()[0].partitions,
        topicConfiguration: { 'retention.ms': Number(replyTopicSpecs()[0].config!['retention.ms']) },
        bindingVersion: KAFKA_BINDING,
      },
    },
  };

  return {
    asyncapi: '3.0.0',
    id: 'urn:payments:kafka',
    info: {
      title: 'Payments: Kafka topics',
      version,
      description: [
        'The Kafka topics of the payment processing service: what travels on each, keyed by what, between which services.',
        'Generated from libs/contracts by tools/asyncapi/asyncapi-document.ts; do not edit (UPDATE_ASYNCAPI=1 npx jest tools/asyncapi rewrites it).',
        '',
        'Every message is one JSON envelope `{ eventId, type, version, occurredAt, correlationId, causationId, payload }` (components/schemas/Envelope); its `type` says which message it is and which payload schema applies. The key is the aggregate id (order, payout, P2P transaction or shop), so all messages of one aggregate stay in order on one partition.',
        'Requests (the commands and queries topics) name the topic to answer in their `reply-topic` header; the reply, `<type>.reply`, carries `{ ok: true, result }` or `{ ok: false, error }`.',
        'Each consumed topic has a `<topic>.dlq` dead-letter topic. Topic names get a prefix (KAFKA_TOPIC_PREFIX, empty in production) when several systems share one broker.',
        'Payload schemas are those producers write; consumers also read a `null` optional member as absent and ignore members they do not know.',
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: '127.0.0.1:19092',
        protocol: 'kafka',
        description: 'The broker `npm start` and `npm test` run (KAFKA_BROKERS elsewhere)',
      },
    },
    channels,
    operations,
    components: { schemas, messages },
  };
}

/** Topic settings as the Kafka binding writes them: numbers as numbers, `cleanup.policy` as a list. */
function configOf(config: Readonly<Record<string, string>>): Schema {
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => [
      k,
      k === 'cleanup.policy' ? v.split(',') : /^[0-9]+$/.test(v) ? Number(v) : v,
    ]),
  );
}

/** The document as committed: YAML, in the order built. */
export function asyncApiYaml(version: string): string {
  const header =
    '# Generated from libs/contracts by tools/asyncapi/asyncapi-document.ts; do not edit.\n' +
    '# tools/asyncapi/asyncapi.spec.ts fails when it is not current; UPDATE_ASYNCAPI=1 npx jest tools/asyncapi rewrites it.\n';
  return header + dump(buildAsyncApiDocument(version), { lineWidth: -1, noRefs: true });
}
