import { ArgumentsHost, Catch, RpcExceptionFilter } from '@nestjs/common';
import { Observable, throwError } from 'rxjs';

/**
 * Nest turns any error of a message handler into `{ status: 'error', message: 'Internal server
 * error' }`. The transport needs the real error to decide between retry and dead-letter and to
 * record the reason, so this filter hands it back unchanged.
 */
@Catch()
export class RethrowRpcErrors implements RpcExceptionFilter<unknown> {
  catch(error: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => error);
  }
}
