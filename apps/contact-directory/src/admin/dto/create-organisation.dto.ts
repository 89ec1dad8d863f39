import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Matches, MaxLength } from 'class-validator';
import type { OrganisationKind } from '../../directory/directory.repository.js';

export const ORGANISATION_KINDS: readonly OrganisationKind[] = ['hirer', 'agency', 'integrator'];
/** At least one character that is not white space. */
export const NOT_BLANK = /\S/;

/** Body of `POST /admin/organisations`. */
export class CreateOrganisationDto {
  @ApiProperty({ maxLength: 200, example: 'Acme Staffing' })
  @IsString()
  @Matches(NOT_BLANK, { message: 'name must not be blank' })
  @MaxLength(200)
  name: string;

  @ApiProperty({ enum: ORGANISATION_KINDS })
  @IsIn(ORGANISATION_KINDS, { message: `kind must be one of: ${ORGANISATION_KINDS.join(', ')}` })
  kind: OrganisationKind;
}
