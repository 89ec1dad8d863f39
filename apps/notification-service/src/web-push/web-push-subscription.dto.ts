import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString, Length } from 'class-validator';
import { NestedDto } from '@availability/contracts';
import { MAX_AUTH_LENGTH, MAX_ENDPOINT_LENGTH, MAX_P256DH_LENGTH } from './subscription-rules.js';

export class WebPushKeysDto {
  @ApiProperty({
    description: 'The browser’s P-256 public key: an uncompressed point (65 bytes) in base64url',
    maxLength: MAX_P256DH_LENGTH,
    example: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
  })
  @IsString()
  @Length(1, MAX_P256DH_LENGTH)
  p256dh: string;

  @ApiProperty({ description: 'The browser’s 16-byte authentication secret in base64url', maxLength: MAX_AUTH_LENGTH, example: 'tBHItJI5svbpez7KI4CCXg' })
  @IsString()
  @Length(1, MAX_AUTH_LENGTH)
  auth: string;
}

/** Body of `PUT /worker/web-push-subscriptions`: the browser's `PushSubscription.toJSON()`. */
export class WebPushSubscriptionDto {
  @ApiProperty({
    description:
      'The push service URL the browser was given: https on port 443 at a browser’s push service (the service’s WEB_PUSH_SERVICE_HOSTS). Identifies the subscription: registering it again updates it.',
    maxLength: MAX_ENDPOINT_LENGTH,
    example: 'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bHqjZxM0VImWWqDRN7U0a3AycjUf4O-byuxb_wJsKRaKvV_iKw56s16ekq6FUqoCF7k2nqWpeFIBzMt',
  })
  @IsString()
  @Length(1, MAX_ENDPOINT_LENGTH)
  endpoint: string;

  @ApiProperty({ type: WebPushKeysDto })
  @IsObject()
  @NestedDto(() => WebPushKeysDto)
  keys: WebPushKeysDto;

  @ApiProperty({
    required: false,
    nullable: true,
    type: 'integer',
    description: 'When the browser will end the subscription (milliseconds since 1970), or null; must be in the future',
    example: null,
  })
  @IsOptional()
  @IsInt()
  expirationTime?: number | null;
}
