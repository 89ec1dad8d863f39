import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { PortalUserRole } from '../../directory/directory.repository.js';
import { NOT_BLANK } from './create-organisation.dto.js';

export const PORTAL_USER_ROLES: readonly PortalUserRole[] = ['admin', 'member'];

/** Body of `POST /admin/organisations/:organisationId/users`. */
export class CreatePortalUserDto {
  @ApiProperty({ maxLength: 320, example: 'sam@acme.example' })
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email: string;

  @ApiProperty({ maxLength: 200, example: 'Sam Example' })
  @IsString()
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ enum: PORTAL_USER_ROLES, default: 'member' })
  @IsOptional()
  @IsIn(PORTAL_USER_ROLES, { message: `role must be one of: ${PORTAL_USER_ROLES.join(', ')}` })
  role?: PortalUserRole;
}
