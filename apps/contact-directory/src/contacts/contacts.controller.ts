import { Controller, Get, Param, Put, Res, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentWorker, WorkerAuthGuard } from '@availability/auth';
import { WorkerContactAddedView, WorkerContactsView } from '@availability/contracts';
import { ContactsService } from './contacts.service.js';

/** The worker app: organisations the signed-in worker shares its availability with. */
@ApiTags('worker app')
@ApiSecurity('bearer')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked worker token' })
@Controller('worker/contacts')
@UseGuards(WorkerAuthGuard)
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @ApiOperation({ summary: 'My contacts, oldest first' })
  @ApiOkResponse({ description: 'My contacts', type: WorkerContactsView })
  list(@CurrentWorker() workerId: string): Promise<WorkerContactsView> {
    return this.contacts.list(workerId);
  }

  @Put(':organisationId')
  @ApiOperation({ summary: 'Add an organisation as a contact (201 when new, 200 when it already was); tells its service' })
  @ApiCreatedResponse({ description: 'Added', type: WorkerContactAddedView })
  @ApiOkResponse({ description: 'Already a contact; nothing sent again', type: WorkerContactAddedView })
  @ApiResponse({ status: 404, description: 'No such organisation' })
  async add(
    @CurrentWorker() workerId: string,
    @Param('organisationId') organisationId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkerContactAddedView> {
    const { contact, created } = await this.contacts.add(workerId, organisationId);
    void reply.status(created ? 201 : 200);
    return { ...contact, created };
  }
}
