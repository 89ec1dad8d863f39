import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { runWithTraceId } from '../logging/trace-context.js';

/**
 * Runs every request handler with the request's id as the trace id, so the logs it writes and the
 * events it puts in the outbox carry it.
 */
export class TraceInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<{ id?: string }>();
    return new Observable((subscriber) => runWithTraceId(request.id, () => next.handle().subscribe(subscriber)));
  }
}
