import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { generateOperatorToken, Operator, OperatorRole } from './operators';

/** What anyone sees of an operator: never the token nor its hash. */
export interface OperatorView {
  id: string;
  name: string;
  role: OperatorRole;
  tokenPrefix: string;
  status: 'active' | 'disabled';
  createdAt: string;
  createdBy: string;
  disabledAt: string | null;
}

interface OperatorRow {
  id: string;
  name: string;
  role: OperatorRole;
  token_prefix: string;
  created_at: Date;
  created_by: string;
  disabled_at: Date | null;
}

function view(row: OperatorRow): OperatorView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    tokenPrefix: row.token_prefix,
    status: row.disabled_at ? 'disabled' : 'active',
    createdAt: row.created_at.toISOString(),
    createdBy: row.created_by,
    disabledAt: row.disabled_at?.toISOString() ?? null,
  };
}

export type CreateOperatorOutcome = { kind: 'created'; view: OperatorView; token: string } | { kind: 'name_taken' };

const COLUMNS = 'id, name, role, token_prefix, created_at, created_by, disabled_at';

@Injectable()
export class OperatorRepository {
  private readonly s: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BACKOFFICE_CONFIG) config: BackofficeConfig,
  ) {
    this.s = config.schema;
  }

  /** The active operator with this token hash. No cache: disabling takes effect on the next request. */
  async findActive(tokenHash: string): Promise<Operator | undefined> {
    const rows: { id: string; name: string; role: OperatorRole }[] = await this.dataSource.query(
      `SELECT id, name, role FROM "${this.s}".operators WHERE token_hash = $1 AND disabled_at IS NULL`,
      [tokenHash],
    );
    return rows[0];
  }

  async create(name: string, role: OperatorRole, createdBy: string): Promise<CreateOperatorOutcome> {
    const { token, hash, prefix } = generateOperatorToken();
    const rows: OperatorRow[] = await this.dataSource.query(
      `INSERT INTO "${this.s}".operators (id, name, role, token_hash, token_prefix, created_by)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [randomUUID(), name, role, hash, prefix, createdBy],
    );
    return rows[0] ? { kind: 'created', view: view(rows[0]), token } : { kind: 'name_taken' };
  }

  async list(): Promise<OperatorView[]> {
    const rows: OperatorRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM "${this.s}".operators ORDER BY created_at, id`,
    );
    return rows.map(view);
  }

  async get(id: string): Promise<OperatorView | undefined> {
    const rows: OperatorRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM "${this.s}".operators WHERE id = $1`,
      [id],
    );
    return rows[0] && view(rows[0]);
  }

  /** Disables the operator (idempotent: a disabled one stays disabled since its first disabling). */
  async disable(id: string): Promise<OperatorView | undefined> {
    const [rows]: [OperatorRow[], number] = await this.dataSource.query(
      `UPDATE "${this.s}".operators SET disabled_at = coalesce(disabled_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] && view(rows[0]);
  }
}
