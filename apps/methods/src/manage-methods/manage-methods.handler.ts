import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CreateMethodCommand,
  createMethodCommand,
  deleteMethodCommand,
  Envelope,
  errorReply,
  MethodCurrency,
  MethodDefinition,
  MethodDirection,
  MethodQueryTypes,
  MethodView,
  okReply,
  parsePayload,
  Reply,
  UpdateMethodCommand,
  updateMethodCommand,
} from '@payments/contracts';
import { checkMethodDefinition } from '@payments/methods-domain';
import { canonicalCurrency } from '@payments/money';
import { entityOf, MethodEntity } from '../method.entity';
import { MethodRepository } from '../method.repository';
import { toDefinition, toMethodView } from '../method-view';
import { CLOCK, Clock } from '../tokens';

const canonical = (currencies: MethodCurrency[]): MethodCurrency[] =>
  currencies.map((c) => ({ ...c, currency: canonicalCurrency(c.currency) }));

function invalid(errors: { path: string; message: string }[]): Reply<never> {
  return errorReply({ code: 'invalid', detail: `${errors[0].path}: ${errors[0].message}`, errors });
}

function codeTaken(direction: MethodDirection, code: string, methodId: string): Reply<never> {
  return errorReply({
    code: 'conflict',
    detail: `the shop already has a ${direction} method with code "${code}"`,
    errors: [{ path: 'code', message: 'is already used by another method of this shop' }],
    extensions: { methodId },
  });
}

const notFound = (direction: MethodDirection): Reply<never> =>
  errorReply({ code: 'not_found', detail: `No such ${direction} method.` });

function definitionOf(cmd: CreateMethodCommand): MethodDefinition {
  return {
    code: cmd.code,
    instrumentType: cmd.instrumentType,
    ...(cmd.cardBrands ? { cardBrands: cmd.cardBrands } : {}),
    ...(cmd.walletTypes ? { walletTypes: cmd.walletTypes } : {}),
    ...(cmd.dataEntryMode ? { dataEntryMode: cmd.dataEntryMode } : {}),
    currencies: canonical(cmd.currencies),
    provider: cmd.provider,
    enabled: cmd.enabled,
  };
}

/** A new method row, not yet stored. */
function newMethod(cmd: CreateMethodCommand, def: MethodDefinition, now: Date): MethodEntity {
  return Object.assign(new (entityOf(cmd.direction))(), {
    id: cmd.methodId,
    shopId: cmd.shopId,
    code: def.code,
    instrumentType: def.instrumentType,
    cardBrands: def.instrumentType === 'card' ? (def.cardBrands ?? []) : null,
    currencies: def.currencies,
    provider: def.provider,
    walletTypes: def.walletTypes ?? [],
    dataEntryMode: def.dataEntryMode ?? null,
    enabled: def.enabled,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<MethodEntity>);
}

/** The method as an update would leave it: what is given replaces, the rest stays. */
function withChanges(current: MethodDefinition, cmd: UpdateMethodCommand): MethodDefinition {
  return {
    ...current,
    ...(cmd.code !== undefined ? { code: cmd.code } : {}),
    ...(cmd.cardBrands !== undefined ? { cardBrands: cmd.cardBrands } : {}),
    ...(cmd.walletTypes !== undefined ? { walletTypes: cmd.walletTypes } : {}),
    ...(cmd.dataEntryMode !== undefined ? { dataEntryMode: cmd.dataEntryMode } : {}),
    ...(cmd.currencies !== undefined ? { currencies: canonical(cmd.currencies) } : {}),
    ...(cmd.provider !== undefined ? { provider: cmd.provider } : {}),
    ...(cmd.enabled !== undefined ? { enabled: cmd.enabled } : {}),
  };
}

/**
 * Operators' changes. Each command is idempotent: a create carries the id the gateway assigned (a
 * resent one answers the method it made), an update sets values, a delete of a deleted method is
 * a not_found the operator can ignore.
 */
@Controller()
export class ManageMethodsHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly methods: MethodRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(MethodQueryTypes.create)
  async create(@Payload() message: Envelope): Promise<Reply<MethodView>> {
    const cmd = parsePayload(createMethodCommand, message.payload, message.type);
    const def = definitionOf(cmd);
    const errors = checkMethodDefinition(def);
    if (errors.length > 0) return invalid(errors);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const existing = await this.methods.findById(m, cmd.direction, cmd.methodId);
      if (existing && existing.shopId === cmd.shopId) return okReply(toMethodView(existing));
      const owner = await this.methods.findCodeOwner(m, cmd.direction, cmd.shopId, cmd.code);
      if (owner) return codeTaken(cmd.direction, cmd.code, owner.id);
      const method = newMethod(cmd, def, now);
      if (await this.methods.insertIfAbsent(m, cmd.direction, method)) return okReply(toMethodView(method));
      const racing = await this.methods.findCodeOwner(m, cmd.direction, cmd.shopId, cmd.code);
      if (racing)
        return racing.id === cmd.methodId
          ? okReply(toMethodView(racing))
          : codeTaken(cmd.direction, cmd.code, racing.id);
      // The id belongs to another shop's method: ids are random UUIDs, so this is a bug upstream.
      throw new Error(`method id ${cmd.methodId} collides with a method of another shop`);
    });
  }

  /** Applies what is given, then checks the whole method as it would be: e.g. brands left on a card. */
  @MessagePattern(MethodQueryTypes.update)
  async update(@Payload() message: Envelope): Promise<Reply<MethodView>> {
    const cmd = parsePayload(updateMethodCommand, message.payload, message.type);
    return this.dataSource.transaction(async (m) => {
      const method = await this.methods.findById(m, cmd.direction, cmd.methodId, true);
      if (!method || method.shopId !== cmd.shopId) return notFound(cmd.direction);
      const next = withChanges(toDefinition(method), cmd);
      const errors = checkMethodDefinition(next);
      if (errors.length > 0) return invalid(errors);
      if (next.code !== method.code) {
        const owner = await this.methods.findCodeOwner(m, cmd.direction, cmd.shopId, next.code);
        if (owner && owner.id !== method.id) return codeTaken(cmd.direction, next.code, owner.id);
      }
      Object.assign(method, {
        code: next.code,
        cardBrands: method.instrumentType === 'card' ? (next.cardBrands ?? []) : null,
        walletTypes: next.walletTypes ?? [],
        dataEntryMode: next.dataEntryMode ?? null,
        currencies: next.currencies,
        provider: next.provider,
        enabled: next.enabled,
        updatedAt: this.clock.now(),
      } satisfies Partial<MethodEntity>);
      return okReply(toMethodView(await this.methods.save(m, cmd.direction, method)));
    });
  }

  @MessagePattern(MethodQueryTypes.delete)
  async delete(@Payload() message: Envelope): Promise<Reply<MethodView>> {
    const cmd = parsePayload(deleteMethodCommand, message.payload, message.type);
    return this.dataSource.transaction(async (m) => {
      const method = await this.methods.findById(m, cmd.direction, cmd.methodId, true);
      if (!method || method.shopId !== cmd.shopId) return notFound(cmd.direction);
      await this.methods.delete(m, cmd.direction, method.id);
      return okReply(toMethodView(method));
    });
  }
}
