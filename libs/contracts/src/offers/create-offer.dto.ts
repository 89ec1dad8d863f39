import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { NestedDto } from '../validation/nested-dto.js';
import { IdList } from '../validation/id-list.js';
import { OfferLimits } from './offer-values.js';

/** ISO 8601 timestamp in UTC: must end in Z (or +00:00), so no slot is read in the wrong zone. */
const UTC_TIMESTAMP = /(Z|[+-]00:?00)$/;
/** The longest ISO 8601 timestamp worth reading (`2026-12-01T08:00:00.123456789+00:00` is 35). */
const TIMESTAMP_LENGTH = 40;

export class OfferTimeSlotDto {
  @ApiProperty({ example: '2026-12-01T08:00:00Z', description: 'Start of the slot, ISO 8601 UTC' })
  @MaxLength(TIMESTAMP_LENGTH)
  @IsISO8601({ strict: true }, { message: 'start must be an ISO 8601 timestamp' })
  @Matches(UTC_TIMESTAMP, { message: 'start must be in UTC (end with Z)' })
  start: string;

  @ApiProperty({ example: '2026-12-01T16:00:00Z', description: 'End of the slot, ISO 8601 UTC' })
  @MaxLength(TIMESTAMP_LENGTH)
  @IsISO8601({ strict: true }, { message: 'end must be an ISO 8601 timestamp' })
  @Matches(UTC_TIMESTAMP, { message: 'end must be in UTC (end with Z)' })
  end: string;
}

/** Body of `POST /offer` (spec 2.1). Property names are matched case-insensitively. */
export class CreateOfferDto {
  @ApiProperty({ maxLength: OfferLimits.userIdLength, description: 'Id of the user creating the offer' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(OfferLimits.userIdLength)
  createdByUserId: string;

  @ApiProperty({ maxLength: OfferLimits.titleLength })
  @IsString()
  @IsNotEmpty()
  @MaxLength(OfferLimits.titleLength)
  title: string;

  @ApiPropertyOptional({ maxLength: OfferLimits.detailsLength, description: 'Free-text description of the work' })
  @IsOptional()
  @IsString()
  @MaxLength(OfferLimits.detailsLength)
  details?: string;

  @ApiPropertyOptional({ maxLength: OfferLimits.locationPlaceIdLength })
  @IsOptional()
  @IsString()
  @MaxLength(OfferLimits.locationPlaceIdLength)
  locationPlaceId?: string;

  @ApiPropertyOptional({ maxLength: OfferLimits.emailLength, description: 'Contact told of answers, completion and withdrawal' })
  @IsOptional()
  @IsEmail({}, { message: 'notifyEmailAddress must be an e-mail address' })
  @MaxLength(OfferLimits.emailLength)
  notifyEmailAddress?: string;

  @ApiProperty({ type: [String], minItems: 1, maxItems: OfferLimits.workers, description: 'Workers who receive the offer' })
  @IsArray()
  @ArrayMinSize(1, { message: 'workerIds must name at least one worker' })
  @ArrayMaxSize(OfferLimits.workers)
  @IdList(OfferLimits.idLength, { repeatMessage: 'workerIds must not repeat a worker' })
  workerIds: string[];

  @ApiProperty({ type: [OfferTimeSlotDto], minItems: 1, maxItems: OfferLimits.events })
  @IsArray()
  @ArrayMinSize(1, { message: 'events must hold at least one time slot' })
  @ArrayMaxSize(OfferLimits.events)
  @NestedDto(() => OfferTimeSlotDto, { each: true })
  events: OfferTimeSlotDto[];
}
