import { Body, Controller, Get, HttpCode, Logger, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { ProblemException } from '@payments/platform';
import { ApiKeyRepository, ApiKeyView } from '@payments/merchant-admin';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { ShopRepository } from '@payments/merchant-admin';
import { OpsEndpoint } from '@payments/merchant-admin';

/** A key never used, never revoked or without an expiry has null there. */
const API_KEY_NULLABLE = ['expiresAt', 'lastUsedAt', 'revokedAt'];
import { CreateApiKeyDto, RevokeApiKeyDto, RotateApiKeyDto } from './api-keys.dto';
import {
  apiKeyListExample,
  createApiKeyExample,
  createdApiKeyExample,
  revokeApiKeyExample,
  revokedApiKeyExample,
  rotateApiKeyExample,
  rotatedApiKeyExample,
} from './api-keys.examples';

const uuid = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', `No such ${what}.`) });

function futureDate(value: string | undefined, path: string): Date | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (!(date.getTime() > Date.now()))
    throw new ProblemException('validation', `${path}: must lie in the future`, [
      { path, message: 'must lie in the future' },
    ]);
  return date;
}

/** Technical support manages a shop's API keys. A key is shown once, in the answer that creates it. */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/shops/:shopId/api-keys')
export class OpsApiKeysController {
  private readonly logger = new Logger(OpsApiKeysController.name);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly shops: ShopRepository,
  ) {}

  @Post()
  @HttpCode(201)
  @Audited({ action: 'api-key.create', object: 'api-key' })
  @OpsEndpoint({
    role: 'admin',
    summary: 'Create an API key for a shop (the key is in this answer only; it is stored hashed)',
    status: 201,
    body: { type: CreateApiKeyDto, example: createApiKeyExample },
    response: { example: createdApiKeyExample, nullable: API_KEY_NULLABLE },
    problems: [404],
  })
  async create(
    @Param('shopId', uuid('shop')) shopId: string,
    @Body() body: CreateApiKeyDto,
  ): Promise<ApiKeyView & { apiKey: string }> {
    const expiresAt = futureDate(body.expiresAt, 'expiresAt');
    await this.shop(shopId);
    const created = await this.keys.create(shopId, expiresAt);
    return { ...created.view, apiKey: created.key };
  }

  @Get()
  @OpsEndpoint({
    summary: "A shop's API keys: prefix, status and dates, never the key",
    response: { example: apiKeyListExample, nullable: API_KEY_NULLABLE },
    problems: [404],
  })
  async list(@Param('shopId', uuid('shop')) shopId: string): Promise<{ items: ApiKeyView[] }> {
    await this.shop(shopId);
    return { items: await this.keys.list(shopId) };
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  @Audited({
    action: 'api-key.revoke',
    object: 'api-key',
    idParam: 'keyId',
    read: { method: 'keyBefore', args: ['shopId', 'keyId'] },
  })
  @OpsEndpoint({
    role: 'admin',
    summary: 'Revoke an API key: refused from the next request on, on every backoffice instance',
    body: { type: RevokeApiKeyDto, example: revokeApiKeyExample },
    response: { example: revokedApiKeyExample, nullable: API_KEY_NULLABLE },
    problems: [404],
  })
  async revoke(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('keyId', uuid('API key')) keyId: string,
    @Body() body: RevokeApiKeyDto = {},
  ): Promise<ApiKeyView> {
    const revoked = await this.keys.revoke(shopId, keyId);
    if (!revoked)
      throw new ProblemException('notFound', (await this.shops.exists(shopId)) ? 'No such API key.' : 'No such shop.');
    this.logger.log(
      `API key ${revoked.prefix}… (${keyId}) of shop ${shopId} revoked${body?.reason ? `: ${JSON.stringify(body.reason)}` : ''}`,
    );
    return revoked;
  }

  @Post(':keyId/rotate')
  @HttpCode(201)
  @Audited({
    action: 'api-key.rotate',
    object: 'api-key',
    idParam: 'keyId',
    read: { method: 'keyBefore', args: ['shopId', 'keyId'] },
  })
  @OpsEndpoint({
    role: 'admin',
    summary: 'Rotate an API key: a new key (in this answer only); the old one works for overlapSeconds more',
    status: 201,
    body: { type: RotateApiKeyDto, example: rotateApiKeyExample },
    response: { example: rotatedApiKeyExample, nullable: API_KEY_NULLABLE },
    problems: [404, 409],
  })
  async rotate(
    @Param('shopId', uuid('shop')) shopId: string,
    @Param('keyId', uuid('API key')) keyId: string,
    @Body() body: RotateApiKeyDto,
  ): Promise<ApiKeyView & { apiKey: string; previous: ApiKeyView }> {
    const expiresAt = futureDate(body.expiresAt, 'expiresAt');
    const outcome = await this.keys.rotate(shopId, keyId, body.overlapSeconds, expiresAt);
    switch (outcome.kind) {
      case 'rotated':
        return { ...outcome.created, apiKey: outcome.key, previous: outcome.previous };
      case 'not_found':
        throw new ProblemException(
          'notFound',
          (await this.shops.exists(shopId)) ? 'No such API key.' : 'No such shop.',
        );
      case 'not_active':
        throw new ProblemException(
          'conflict',
          `The key is ${outcome.current.status}; only an active key can be rotated. Create a new key instead.`,
          undefined,
          {
            keyId,
            currentStatus: outcome.current.status,
          },
        );
    }
  }

  /** The key as it was, for the audit record's `before` (not a route). */
  async keyBefore(shopId: string, keyId: string): Promise<ApiKeyView | null> {
    return (await this.keys.list(shopId)).find((k) => k.id === keyId) ?? null;
  }

  private async shop(shopId: string): Promise<void> {
    if (!(await this.shops.exists(shopId))) throw new ProblemException('notFound', 'No such shop.');
  }
}
