import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { IdempotentRequest, newObjectId } from './idempotency-request';

/** `@NewObjectId() id: string`: the id for the object this POST creates; see `newObjectId`. */
export const NewObjectId = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  newObjectId(ctx.switchToHttp().getRequest<IdempotentRequest>()),
);
