import { IsDefined, IsString, Length, Matches } from 'class-validator';
import { NoCardNumber } from './card-number.validator';

/**
 * A merchant's own id given in a query (merchantOrderId, merchantPayoutId, merchantP2pId): what
 * creation accepts, 1–128 characters; never a NUL, which PostgreSQL cannot compare (no such id exists),
 * and never a card number, refused here by the rule of every free-text field and id (decision 258:
 * a 19-digit snowflake or timestamp is an id, not a card; creation refuses the same, so no such
 * id exists either).
 */
export function IsMerchantId(): PropertyDecorator {
  return (target, key) => {
    IsDefined({ message: 'is required' })(target, key);
    IsString()(target, key);
    Length(1, 128)(target, key);
    Matches(/^[^\u0000]*$/u, { message: 'must not contain NUL characters' })(target, key);
    NoCardNumber()(target, key as string);
  };
}
