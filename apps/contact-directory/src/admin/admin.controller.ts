import { Body, Controller, Delete, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { validateBody } from '@availability/service-core';
import { AdminAuthGuard } from './admin-auth.guard.js';
import { DirectoryAdminService } from './directory-admin.service.js';
import {
  ApiKeyView,
  OrganisationCreatedView,
  PortalUserTokenView,
  PortalUserView,
  SuggestionProviderApprovalView,
  WorkerCreatedView,
  WorkersCreatedView,
  WorkerTokenView,
} from './dto/admin-views.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';
import { CreateOrganisationDto } from './dto/create-organisation.dto.js';
import { CreatePortalUserDto } from './dto/create-portal-user.dto.js';
import { CreateWorkerDto, CreateWorkersBulkDto } from './dto/create-worker.dto.js';
import { SuggestionProviderApprovalDto } from './dto/suggestion-provider-approval.dto.js';

/** Admin API for platform operators (the CLI, tests and benchmarks use it). Every error is problem+json. */
@ApiTags('admin')
@ApiBearerAuth('admin')
@ApiResponse({ status: 401, description: 'Missing or wrong admin token (problem+json)' })
@Controller('admin')
@UseGuards(AdminAuthGuard)
export class AdminController {
  constructor(private readonly admin: DirectoryAdminService) {}

  @Post('organisations')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an organisation and its first API key' })
  @ApiResponse({ status: 201, type: OrganisationCreatedView })
  @ApiResponse({ status: 400, description: 'Field errors' })
  createOrganisation(@Body() dto: CreateOrganisationDto): Promise<OrganisationCreatedView> {
    return this.admin.createOrganisation(dto);
  }

  @Put('organisations/:organisationId/suggestion-provider')
  @ApiOperation({
    summary:
      'Approve (or stop approving) an organisation as a contact-suggestion provider; integrators are providers by kind. ' +
      "Providers receive searching users' e-mail addresses, so only organisations the operator vouches for may offer suggestions",
  })
  @ApiResponse({ status: 200, type: SuggestionProviderApprovalView })
  @ApiResponse({ status: 404, description: 'No such organisation' })
  setSuggestionProvider(@Param('organisationId') organisationId: string, @Body() dto: SuggestionProviderApprovalDto): Promise<SuggestionProviderApprovalView> {
    return this.admin.setSuggestionProviderApproved(organisationId, dto.approved);
  }

  @Post('organisations/:organisationId/api-keys')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue another API key to an organisation' })
  @ApiBody({ type: CreateApiKeyDto, required: false })
  @ApiResponse({ status: 201, type: ApiKeyView })
  @ApiResponse({ status: 404, description: 'No such organisation' })
  createApiKey(@Param('organisationId') organisationId: string, @Body() body: unknown): Promise<ApiKeyView> {
    const dto = validateBody(CreateApiKeyDto, body ?? {});
    return this.admin.createApiKey(organisationId, dto.name);
  }

  @Delete('api-keys/:apiKeyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key; services caching it are told at once' })
  @ApiResponse({ status: 204, description: 'Revoked (also when it already was)' })
  @ApiResponse({ status: 404, description: 'No such API key' })
  async revokeApiKey(@Param('apiKeyId') apiKeyId: string): Promise<void> {
    await this.admin.revokeApiKey(apiKeyId);
  }

  @Post('organisations/:organisationId/users')
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a portal user to an organisation' })
  @ApiResponse({ status: 201, type: PortalUserView })
  @ApiResponse({ status: 404, description: 'No such organisation' })
  @ApiResponse({ status: 409, description: 'The organisation already has a user with this e-mail address' })
  createUser(@Param('organisationId') organisationId: string, @Body() dto: CreatePortalUserDto): Promise<PortalUserView> {
    return this.admin.createPortalUser(organisationId, dto);
  }

  @Post('organisations/:organisationId/workers')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a worker of the organisation, with a worker token' })
  @ApiResponse({ status: 201, type: WorkerCreatedView })
  @ApiResponse({ status: 404, description: 'No such organisation' })
  async createWorker(@Param('organisationId') organisationId: string, @Body() dto: CreateWorkerDto): Promise<WorkerCreatedView> {
    const [worker] = await this.admin.createWorkers(organisationId, [dto]);
    return worker;
  }

  @Post('organisations/:organisationId/workers/bulk')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create up to 10,000 workers of the organisation at once, each with a worker token' })
  @ApiResponse({ status: 201, type: WorkersCreatedView })
  @ApiResponse({ status: 404, description: 'No such organisation' })
  async createWorkers(@Param('organisationId') organisationId: string, @Body() dto: CreateWorkersBulkDto): Promise<WorkersCreatedView> {
    return { workers: await this.admin.createWorkers(organisationId, dto.workers) };
  }

  @Put('organisations/:organisationId/workers/:workerId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Link an existing worker to (another) organisation; repeating it is harmless' })
  @ApiResponse({ status: 204, description: 'Linked' })
  @ApiResponse({ status: 404, description: 'No such organisation or worker' })
  async linkWorker(@Param('organisationId') organisationId: string, @Param('workerId') workerId: string): Promise<void> {
    await this.admin.linkWorker(organisationId, workerId);
  }

  @Post('workers/:workerId/tokens')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue another worker token' })
  @ApiResponse({ status: 201, type: WorkerTokenView })
  @ApiResponse({ status: 404, description: 'No such worker' })
  issueWorkerToken(@Param('workerId') workerId: string): Promise<WorkerTokenView> {
    return this.admin.issueWorkerToken(workerId);
  }

  @Delete('worker-tokens/:tokenId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a worker token; services caching it are told at once' })
  @ApiResponse({ status: 204, description: 'Revoked (also when it already was)' })
  @ApiResponse({ status: 404, description: 'No such worker token' })
  async revokeWorkerToken(@Param('tokenId') tokenId: string): Promise<void> {
    await this.admin.revokeWorkerToken(tokenId);
  }

  @Post('users/:userId/tokens')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue a portal sign-in token (put_…) to a portal user' })
  @ApiResponse({ status: 201, type: PortalUserTokenView })
  @ApiResponse({ status: 404, description: 'No such user' })
  issueUserToken(@Param('userId') userId: string): Promise<PortalUserTokenView> {
    return this.admin.issuePortalUserToken(userId);
  }

  @Delete('user-tokens/:tokenId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a portal user token; services caching it are told at once' })
  @ApiResponse({ status: 204, description: 'Revoked (also when it already was)' })
  @ApiResponse({ status: 404, description: 'No such user token' })
  async revokeUserToken(@Param('tokenId') tokenId: string): Promise<void> {
    await this.admin.revokePortalUserToken(tokenId);
  }
}
