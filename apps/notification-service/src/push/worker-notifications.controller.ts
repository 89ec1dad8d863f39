import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorker, WorkerAuthGuard } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { PushRepository } from './push.repository.js';

const MAX_PAGE = 100;

/** What the worker was told, newest first: the app shows it even when a push never arrived. */
@ApiTags('worker app')
@ApiSecurity('bearer')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked worker token' })
@Controller('worker/notifications')
@UseGuards(WorkerAuthGuard)
export class WorkerNotificationsController {
  constructor(private readonly repository: PushRepository) {}

  @Get()
  @ApiOperation({ summary: 'My notifications, newest first' })
  @ApiQuery({ name: 'limit', required: false, description: `1 to ${MAX_PAGE}, default 50` })
  @ApiQuery({ name: 'before', required: false, description: 'nextCursor of the previous page' })
  async list(@CurrentWorker() workerId: string, @Query('limit') limit?: string, @Query('before') before?: string) {
    const pageSize = positiveInteger('limit', limit, 50, MAX_PAGE);
    const rows = await this.repository.workerNotifications(workerId, pageSize, before === undefined ? undefined : positiveInteger('before', before));
    return {
      notifications: rows.map((row) => ({
        id: row.id,
        eventId: row.eventId,
        kind: row.kind,
        offerId: row.offerId,
        organisationId: row.organisationId,
        title: row.title,
        body: row.body,
        createdAt: new Date(row.createdAt).toISOString(),
      })),
      nextCursor: rows.length === pageSize ? String(rows[rows.length - 1].id) : null,
    };
  }
}

function positiveInteger(field: string, raw: string | undefined, fallback?: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined && fallback !== undefined) return fallback;
  const value = Number(raw);
  if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw) || value < 1 || value > max) {
    throw ProblemException.field(field, `must be a whole number from 1 to ${max}`);
  }
  return value;
}
