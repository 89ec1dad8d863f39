import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { NOT_BLANK } from './create-organisation.dto.js';

/** Body of `POST /admin/organisations/:organisationId/api-keys` (the body may be left out). */
export class CreateApiKeyDto {
  @ApiPropertyOptional({ maxLength: 100, description: 'What the key is for, e.g. "payroll integration"' })
  @IsOptional()
  @IsString()
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  @MaxLength(100)
  name?: string;
}
