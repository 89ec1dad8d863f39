import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { isUuid } from '@availability/contracts';
import { CurrentWorker, WorkerAuthGuard } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { deviceView, DevicesView, DeviceView } from './device.view.js';
import { DevicesRepository } from './devices.repository.js';
import { RegisterDeviceDto } from './register-device.dto.js';


/** The worker app registers the devices it runs on, so offers reach them as pushes. */
@ApiTags('worker app')
@ApiSecurity('bearer')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked worker token' })
@Controller('worker/devices')
@UseGuards(WorkerAuthGuard)
export class WorkerDevicesController {
  constructor(private readonly devices: DevicesRepository) {}

  @Put()
  @ApiOperation({ summary: 'Register this device’s FCM token (idempotent)' })
  @ApiCreatedResponse({ description: 'Registered', type: DeviceView })
  @ApiOkResponse({ description: 'Already registered; platform and version updated', type: DeviceView })
  @ApiResponse({ status: 409, description: 'Another worker holds this token: the app gets a new FCM token (deleteToken, then getToken) and registers that' })
  async register(@CurrentWorker() workerId: string, @Body() dto: RegisterDeviceDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<DeviceView> {
    const registration = await this.devices.upsert(workerId, dto.token, dto.platform, dto.appVersion ?? '');
    if (registration.taken) {
      throw ProblemException.conflict(
        'device-token-taken',
        'This FCM token is registered to another worker. Sign that worker out on the device, or get a new token (deleteToken, then getToken) and register it.',
      );
    }
    reply.status(registration.created ? 201 : 200);
    return deviceView(registration.device);
  }

  @Get()
  @ApiOperation({ summary: 'My registered devices' })
  @ApiOkResponse({ description: 'My devices', type: DevicesView })
  async list(@CurrentWorker() workerId: string): Promise<DevicesView> {
    return { devices: (await this.devices.forWorker(workerId)).map(deviceView) };
  }

  @Delete(':deviceId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Stop pushes to one of my devices (e.g. on sign-out)' })
  @ApiNoContentResponse({ description: 'Removed; no body' })
  @ApiResponse({ status: 404, description: 'No such device of mine' })
  async remove(@CurrentWorker() workerId: string, @Param('deviceId') deviceId: string): Promise<void> {
    if (!isUuid(deviceId) || !(await this.devices.delete(workerId, deviceId))) throw ProblemException.notFound('The device');
  }
}
