import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { Operator, OperatorRole } from '../operators/operators';

/** A signed-in operator's session lasts this long from sign-in; then they sign in again. */
export const SESSION_HOURS = 8;
/** ...and ends sooner when it goes unused this long (decision 180): each request renews it. */
export const SESSION_IDLE_MINUTES = 30;

export interface ConsoleSession {
  operator: Operator;
  csrfToken: string;
}

const hash = (id: string) => createHash('sha256').update(id).digest('hex');

/** The OPS_TOKEN a session was signed in with, as stored: SHA-256 of its SHA-256, never the token. */
export const opsTokenFingerprint = (token: string) =>
  createHash('sha256').update(createHash('sha256').update(token).digest()).digest('hex');

@Injectable()
export class ConsoleSessionRepository {
  private readonly s: string;
  /** Sessions of the built-in admin hold only while OPS_TOKEN is the one they signed in with. */
  private readonly tokenFingerprint: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BACKOFFICE_CONFIG) config: BackofficeConfig,
  ) {
    this.s = config.schema;
    this.tokenFingerprint = opsTokenFingerprint(config.opsToken);
  }

  /** A new session: its id (for the cookie) and its CSRF token; expired ones are swept on the way. */
  async create(operator: Operator): Promise<{ id: string; csrfToken: string }> {
    const id = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    await this.dataSource.query(`DELETE FROM "${this.s}".console_sessions WHERE expires_at < now()`);
    await this.dataSource.query(
      `INSERT INTO "${this.s}".console_sessions (id_hash, operator_id, operator_name, operator_role, csrf_token, expires_at, ops_token_fingerprint)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6), $7)`,
      [
        hash(id),
        operator.id,
        operator.name,
        operator.role,
        csrfToken,
        SESSION_HOURS,
        operator.id === 'ops-token' ? this.tokenFingerprint : null,
      ],
    );
    return { id, csrfToken };
  }

  /**
   * The session's operator as of now: a named operator's current role, and none once they are
   * disabled (their sessions end with their token); the built-in admin's only while OPS_TOKEN is
   * still the token they signed in with (decision 178); none once unused for
   * SESSION_IDLE_MINUTES, and a session found is used now (decision 180).
   */
  async find(id: string): Promise<ConsoleSession | undefined> {
    const rows: { operator_id: string; name: string; role: OperatorRole; csrf_token: string }[] =
      await this.dataSource.query(
        `WITH used AS (
           UPDATE "${this.s}".console_sessions SET last_used_at = now()
            WHERE id_hash = $1 AND expires_at > now() AND last_used_at > now() - make_interval(mins => $3)
            RETURNING operator_id, operator_name, operator_role, csrf_token, ops_token_fingerprint)
         SELECT s.operator_id, coalesce(o.name, s.operator_name) AS name, coalesce(o.role, s.operator_role) AS role, s.csrf_token
           FROM used s
           LEFT JOIN "${this.s}".operators o ON o.id::text = s.operator_id
          WHERE (s.operator_id = 'ops-token' AND s.ops_token_fingerprint = $2)
             OR (o.id IS NOT NULL AND o.disabled_at IS NULL)`,
        [hash(id), this.tokenFingerprint, SESSION_IDLE_MINUTES],
      );
    const row = rows[0];
    return row && { operator: { id: row.operator_id, name: row.name, role: row.role }, csrfToken: row.csrf_token };
  }

  async delete(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM "${this.s}".console_sessions WHERE id_hash = $1`, [hash(id)]);
  }
}
