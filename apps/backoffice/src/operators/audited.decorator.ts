import { SetMetadata } from '@nestjs/common';

export const AUDITED = 'payments:audited';

export interface AuditSpec {
  /** Stable name of the action, e.g. `order.resolve`; the audit log's `action` filter. */
  action: string;
  /** What kind of object it acts on: `order`, `shop`, `delivery` … */
  object: string;
  /** The route parameter holding the object's id; without it, the answer's `id` (a created object). */
  idParam?: string;
  /** The body member holding the object's id, for a route whose object is named in its body (decision 181). */
  idBody?: string;
  /**
   * The handler writes its own records (one per object of a batch, in its transaction): the
   * interceptor writes none.
   */
  recordsItself?: boolean;
  /**
   * The same controller's read of the object (a GET route's method, called with the route
   * parameters named in `args`, then the acting operator): read before the action for the
   * record's `before`. Without it `before` is null (a creation, or an object the backoffice has no
   * read for).
   */
  read?: {
    method: string;
    args: string[];
    /** Of `args`, the ones that are no ids (a fee line's method and currency): the read checks them itself. */
    checkedByRead?: string[];
  };
}

/** Every state-changing operator route carries this: the AuditInterceptor writes the record. */
export const Audited = (spec: AuditSpec) => SetMetadata(AUDITED, spec);
