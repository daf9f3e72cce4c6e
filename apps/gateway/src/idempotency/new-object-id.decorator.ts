import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { IdempotentRequest, newObjectId } from '@payments/merchant-admin';

/** `@NewObjectId() id: string`: the id for the object this POST creates; see `newObjectId`. */
export const NewObjectId = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  newObjectId(ctx.switchToHttp().getRequest<IdempotentRequest>()),
);

/**
 * `@CardTokens() cardTokens: (token: string) => void`: tells the request's idempotency record the
 * vault token of a card the request carried, so that erasing the card also removes the SHA-256 of
 * this request's body, which holds its number (decision 259).
 */
export const CardTokens = createParamDecorator((_: unknown, ctx: ExecutionContext): ((token: string) => void) => {
  const request = ctx.switchToHttp().getRequest<IdempotentRequest>();
  return (token: string) => {
    request.cardTokens = [...(request.cardTokens ?? []), token];
  };
});
