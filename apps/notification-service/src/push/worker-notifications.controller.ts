import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentWorker, WorkerAuthGuard } from '@availability/auth';
import { MAX_PAGE_SIZE, pageFromQuery } from '@availability/service-core';
import { PushRepository } from './push.repository.js';
import { workerNotificationsPage, WorkerNotificationsPage } from './worker-notification.view.js';

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
  @ApiQuery({ name: 'limit', required: false, description: `1 to ${MAX_PAGE_SIZE}, default 50` })
  @ApiQuery({ name: 'before', required: false, description: 'nextCursor of the previous page' })
  @ApiOkResponse({ description: 'A page of my notifications', type: WorkerNotificationsPage })
  async list(@CurrentWorker() workerId: string, @Query('limit') limit?: string, @Query('before') before?: string): Promise<WorkerNotificationsPage> {
    const { limit: pageSize, before: cursor } = pageFromQuery(limit, before);
    const rows = await this.repository.workerNotifications(workerId, pageSize, cursor);
    return workerNotificationsPage(rows, pageSize);
  }
}

