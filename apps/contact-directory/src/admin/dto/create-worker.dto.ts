import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsEmail, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { NestedDto } from '@availability/contracts';
import { NOT_BLANK } from './create-organisation.dto.js';

/** Most workers one bulk request may create. */
export const MAX_BULK_WORKERS = 10_000;

/** Body of `POST /admin/organisations/:organisationId/workers`, and one element of a bulk request. */
export class CreateWorkerDto {
  @ApiProperty({ maxLength: 200, example: 'Alex Worker' })
  @IsString()
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ maxLength: 320 })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email?: string;
}

/** Body of `POST /admin/organisations/:organisationId/workers/bulk`. */
export class CreateWorkersBulkDto {
  @ApiProperty({ type: [CreateWorkerDto], minItems: 1, maxItems: MAX_BULK_WORKERS })
  @IsArray()
  @ArrayMinSize(1, { message: 'workers must hold at least one worker' })
  @ArrayMaxSize(MAX_BULK_WORKERS, { message: `workers must hold at most ${MAX_BULK_WORKERS} workers` })
  @NestedDto(() => CreateWorkerDto, { each: true })
  workers: CreateWorkerDto[];
}
