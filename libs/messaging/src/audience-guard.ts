import { Logger } from '@nestjs/common';
import {
  allowedOnTopic,
  audienceReplyTopic,
  commandTopicAudience,
  Envelope,
  errorReply,
  operatorOf,
  Reply,
} from '@payments/contracts';
import { PaymentsMetrics } from '@payments/platform';

const logger = new Logger('AudienceGuard');

/** What to do with a command that did not come through its audience's path (decision 263). */
export interface Refusal {
  /** The refusal to send back, when the reply topic is the topic's audience's own; else the command is dropped. */
  readonly answer?: Reply<never>;
}

/**
 * Whether a message of `type` on `contractTopic` may go to a batch handler as far as audiences go:
 * never on an operator path, whose commands go one by one through `refusal`, which checks their
 * operator (decision 301).
 */
export function onItsPath(contractTopic: string, type: string): boolean {
  const path = commandTopicAudience(contractTopic);
  return !path || (path.audience !== 'operator' && allowedOnTopic(type, contractTopic));
}

/**
 * Checks a message of a command topic against `commandAudiences` (libs/contracts): undefined when it
 * may be handled; a Refusal when its type is not one of the topic's audience, when it asks for its
 * reply on a topic of another audience, or when it came through the operator path without a valid
 * operator in its payload (`operator`, decision 301). A refusal changes nothing and is never
 * dead-lettered: it is answered on the audience's own reply topic, or else dropped; both are
 * counted (`payments_commands_refused_total`) and logged at warn.
 */
export function refusal(
  contractTopic: string,
  env: Envelope,
  replyTo: string | undefined,
  topicPrefix: string,
): Refusal | undefined {
  const path = commandTopicAudience(contractTopic);
  if (!path) return undefined;
  const ownReplyTopic = topicPrefix + audienceReplyTopic(contractTopic)!;
  const allowed = allowedOnTopic(env.type, contractTopic);
  const replyOk = replyTo === undefined || replyTo === ownReplyTopic;
  const operator = path.audience === 'operator' ? operatorOf(env.payload) : undefined;
  if (allowed && replyOk && operator?.ok !== false) return undefined;
  const reason = !allowed ? 'wrong_audience' : !replyOk ? 'wrong_reply_topic' : 'no_operator';
  const answered = reason !== 'wrong_reply_topic' && replyTo === ownReplyTopic;
  PaymentsMetrics.commandsRefused.inc({ topic: contractTopic, reason, outcome: answered ? 'answered' : 'dropped' });
  // The type and reply topic come from the sender: cut to a bounded length before they are logged.
  logger.warn(
    `${String(env.type).slice(0, 100)} ${env.eventId} refused on ${contractTopic} (${reason}, ${path.audience} path, reply topic ${String(replyTo ?? 'none').slice(0, 200)}): ${answered ? 'answered' : 'dropped'}`,
  );
  if (!answered) return {};
  const type = String(env.type).slice(0, 100);
  return {
    answer: errorReply({
      code: 'forbidden',
      detail:
        reason === 'no_operator'
          ? `${type} is not allowed without its operator: ${contractTopic} takes commands with a valid operator only (${operator && !operator.ok ? operator.error : ''})`
          : `${type} is not allowed on this path: ${contractTopic} carries the commands of the ${path.audience} audience only`,
    }),
  };
}
