import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { auditSchemaOf } from './audit-log.ddl';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { Operator, OperatorRole } from './operators';

export interface AuditRecord {
  id: string;
  at: string;
  operator: { id: string; name: string; role: OperatorRole };
  action: string;
  object: { type: string; id: string | null };
  before: unknown;
  after: unknown;
  reason: string | null;
  /** The request that did it: method and path. */
  request: string;
}

export interface NewAuditRecord {
  operator: Operator;
  action: string;
  objectType: string;
  objectId: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
  request: string;
}

export interface AuditFilter {
  operatorId?: string;
  action?: string;
  objectType?: string;
  objectId?: string;
  from?: Date;
  to?: Date;
  /** Records older than this id (the nextCursor of the previous page). */
  cursor?: string;
  limit: number;
}

interface AuditRow {
  id: string;
  at: Date;
  operator_id: string;
  operator_name: string;
  operator_role: OperatorRole;
  action: string;
  object_type: string;
  object_id: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
  request: string;
}

/** Append-only: nothing in the backoffice updates or deletes an audit record. */
@Injectable()
export class AuditRepository {
  private readonly s: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BACKOFFICE_CONFIG) config: BackofficeConfig,
  ) {
    this.s = auditSchemaOf(config.schema);
  }

  /** Appends a record; with a transaction's manager, the record stands or falls with its change. */
  async append(r: NewAuditRecord, m?: EntityManager): Promise<void> {
    await (m ?? this.dataSource).query(
      `INSERT INTO "${this.s}".audit_log (operator_id, operator_name, operator_role, action, object_type, object_id, before, after, reason, request)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        r.operator.id,
        r.operator.name,
        r.operator.role,
        r.action,
        r.objectType,
        r.objectId,
        r.before === undefined ? null : JSON.stringify(r.before),
        r.after === undefined ? null : JSON.stringify(r.after),
        r.reason,
        r.request,
      ],
    );
  }

  /** Newest first. */
  async list(f: AuditFilter): Promise<{ items: AuditRecord[]; nextCursor: string | null }> {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      args.push(value);
      where.push(sql.replace('?', `$${args.length}`));
    };
    if (f.operatorId) add('operator_id = ?', f.operatorId);
    if (f.action) add('action = ?', f.action);
    if (f.objectType) add('object_type = ?', f.objectType);
    if (f.objectId) add('object_id = ?', f.objectId);
    if (f.from) add('at >= ?', f.from);
    if (f.to) add('at < ?', f.to);
    if (f.cursor) add('id < ?', f.cursor);
    args.push(f.limit + 1);
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT * FROM "${this.s}".audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY id DESC LIMIT $${args.length}`,
      args,
    );
    const page = rows.slice(0, f.limit);
    return {
      items: page.map((row) => ({
        id: String(row.id),
        at: row.at.toISOString(),
        operator: { id: row.operator_id, name: row.operator_name, role: row.operator_role },
        action: row.action,
        object: { type: row.object_type, id: row.object_id },
        before: row.before,
        after: row.after,
        reason: row.reason,
        request: row.request,
      })),
      nextCursor: rows.length > f.limit ? String(page[page.length - 1].id) : null,
    };
  }
}
