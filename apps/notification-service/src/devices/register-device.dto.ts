import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import type { DevicePlatform } from '../push/push-transport.js';

export const DEVICE_PLATFORMS: DevicePlatform[] = ['ios', 'android'];
export const MAX_DEVICE_TOKEN_LENGTH = 4096;

/** Body of `PUT /worker/devices`: the FCM registration token the app got from Firebase. */
export class RegisterDeviceDto {
  @ApiProperty({ description: 'FCM registration token', maxLength: MAX_DEVICE_TOKEN_LENGTH })
  @IsString()
  @Length(1, MAX_DEVICE_TOKEN_LENGTH)
  @Matches(/^[\x21-\x7e]+$/, { message: 'token must be printable ASCII without spaces' })
  token: string;

  @ApiProperty({ enum: DEVICE_PLATFORMS })
  @IsIn(DEVICE_PLATFORMS, { message: `platform must be one of: ${DEVICE_PLATFORMS.join(', ')}` })
  platform: DevicePlatform;

  @ApiProperty({ required: false, maxLength: 64, example: '2.4.1' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  appVersion?: string;
}
