import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ProblemException } from '@payments/platform';
import { OpsAuthGuard, OpsRequest } from '../auth/ops-auth.guard';
import { OpsEndpoint } from '@payments/merchant-admin';
import { AuditRecord, AuditRepository } from '../operators/audit.repository';
import { Audited } from '../operators/audited.decorator';
import { OperatorRepository, OperatorView } from '../operators/operator.repository';
import { Operator } from '../operators/operators';
import { CreateOperatorDto, DisableOperatorDto, ListAuditDto } from './operators.dto';
import {
  auditPageExample,
  createdOperatorExample,
  createOperatorExample,
  disabledOperatorExample,
  disableOperatorExample,
  meExample,
  operatorListExample,
} from './operators.examples';

const operatorIdPipe = new ParseUUIDPipe({
  exceptionFactory: () => new ProblemException('notFound', 'No such operator.'),
});

/** Named operators (an admin creates them; each has its own token) and the audit log of their actions. */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1')
export class OpsOperatorsController {
  constructor(
    private readonly operators: OperatorRepository,
    private readonly audit: AuditRepository,
  ) {}

  @Get('me')
  @OpsEndpoint({ summary: 'The operator this token belongs to: name and role', response: { example: meExample } })
  me(@Req() request: OpsRequest): Operator {
    const { id, name, role } = request.operator!;
    return { id, name, role };
  }

  @Post('operators')
  @HttpCode(201)
  @Audited({ action: 'operator.create', object: 'operator' })
  @OpsEndpoint({
    summary: 'Create a named operator (the token is in this answer only; it is stored hashed)',
    status: 201,
    role: 'admin',
    body: { type: CreateOperatorDto, example: createOperatorExample },
    response: { example: createdOperatorExample, nullable: ['disabledAt'] },
    problems: [409],
  })
  async create(@Req() request: OpsRequest, @Body() body: CreateOperatorDto): Promise<OperatorView & { token: string }> {
    const outcome = await this.operators.create(body.name.trim(), body.role, request.operator!.name);
    if (outcome.kind === 'name_taken')
      throw new ProblemException('conflict', `An operator named ${JSON.stringify(body.name)} exists already.`);
    return { ...outcome.view, token: outcome.token };
  }

  @Get('operators')
  @OpsEndpoint({
    summary: 'Every operator: name, role, status; never the token',
    role: 'admin',
    response: { example: operatorListExample, nullable: ['disabledAt'] },
  })
  async list(): Promise<{ items: OperatorView[] }> {
    return { items: await this.operators.list() };
  }

  @Post('operators/:operatorId/disable')
  @HttpCode(200)
  @Audited({
    action: 'operator.disable',
    object: 'operator',
    idParam: 'operatorId',
    read: { method: 'get', args: ['operatorId'] },
  })
  @OpsEndpoint({
    summary: 'Disable an operator: the token is refused from the next request on',
    role: 'admin',
    body: { type: DisableOperatorDto, example: disableOperatorExample },
    response: { example: disabledOperatorExample, nullable: ['disabledAt'] },
    problems: [404],
  })
  async disable(
    @Param('operatorId', operatorIdPipe) operatorId: string,
    @Body() _body: DisableOperatorDto,
  ): Promise<OperatorView> {
    const disabled = await this.operators.disable(operatorId);
    if (!disabled) throw new ProblemException('notFound', 'No such operator.');
    return disabled;
  }

  @Get('operators/:operatorId')
  @OpsEndpoint({
    summary: 'One operator',
    role: 'admin',
    response: { example: disabledOperatorExample, nullable: ['disabledAt'] },
    problems: [404],
  })
  async get(@Param('operatorId', operatorIdPipe) operatorId: string): Promise<OperatorView> {
    const found = await this.operators.get(operatorId);
    if (!found) throw new ProblemException('notFound', 'No such operator.');
    return found;
  }

  @Get('audit')
  @OpsEndpoint({
    summary: 'The audit log, newest first: who did what, on which object, before and after, and why',
    description: 'Filters: operatorId, action, objectType, objectId, from, to; limit and cursor.',
    response: {
      example: auditPageExample,
      nullable: ['nextCursor', 'reason', 'before', 'after', 'id'],
      open: ['before', 'after'],
    },
    problems: [400],
  })
  list_audit(@Query() q: ListAuditDto): Promise<{ items: AuditRecord[]; nextCursor: string | null }> {
    return this.audit.list({
      limit: q.limit ?? 50,
      ...(q.operatorId ? { operatorId: q.operatorId } : {}),
      ...(q.action ? { action: q.action } : {}),
      ...(q.objectType ? { objectType: q.objectType } : {}),
      ...(q.objectId ? { objectId: q.objectId } : {}),
      ...(q.from ? { from: new Date(q.from) } : {}),
      ...(q.to ? { to: new Date(q.to) } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
  }
}
