import { ApiProperty } from '@nestjs/swagger';
import { type DevicePlatform, maskToken } from '../push/push-transport.js';
import type { DeviceRow } from './devices.repository.js';
import { DEVICE_PLATFORMS } from './register-device.dto.js';

/** A registered device as the worker app sees it. */
export class DeviceView {
  @ApiProperty({ format: 'uuid', example: '5f6630b4-c458-424d-b66c-425f948d8f6a' })
  id: string;

  @ApiProperty({ enum: DEVICE_PLATFORMS, example: 'android' })
  platform: DevicePlatform;

  @ApiProperty({ description: 'Empty when the app sent none', example: '2.4.1' })
  appVersion: string;

  @ApiProperty({
    description: 'The FCM token masked, as it is the app’s own secret: its first 6 and last 4 characters and its length ("***" for 12 characters or fewer)',
    example: 'fMEQq2…6789 (47)',
  })
  token: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.665Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', description: 'Last registration of the token', example: '2026-11-24T22:25:19.668Z' })
  updatedAt: string;
}

export class DevicesView {
  @ApiProperty({ type: [DeviceView] })
  devices: DeviceView[];
}

export function deviceView(device: DeviceRow): DeviceView {
  return {
    id: device.id,
    platform: device.platform,
    appVersion: device.appVersion,
    token: maskToken(device.token),
    createdAt: new Date(device.createdAt).toISOString(),
    updatedAt: new Date(device.updatedAt).toISOString(),
  };
}
