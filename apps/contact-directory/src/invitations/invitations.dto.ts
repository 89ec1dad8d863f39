import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsEmail, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { NestedDto } from '@availability/contracts';
import { IsInviteeName, MAX_INVITEE_NAME_LENGTH } from './invitee-name.js';

export const MAX_INVITATIONS = 100;

export class InvitationDto {
  @ApiProperty({
    maxLength: MAX_INVITEE_NAME_LENGTH,
    example: 'Jo Contact',
    description:
      "The person's name, the one text of the inviter's in the e-mail: letters of any script, spaces and ' - , . (a full stop followed by a space), nothing that reads as a link or address (no digits, @ : / \\ < > &, no control, formatting or bidi characters). Checked and stored NFKC, spaces tidied.",
  })
  @IsString()
  @MaxLength(MAX_INVITEE_NAME_LENGTH)
  @IsInviteeName()
  name: string;

  @ApiProperty({ maxLength: 320, example: 'jo@example.com' })
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'emailAddress must be an e-mail address' })
  emailAddress: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The integrator whose contact suggestion this was' })
  @IsOptional()
  @IsUUID('all', { message: 'suggestedByOrganisationId must be an organisation id (uuid)' })
  suggestedByOrganisationId?: string;
}

/** Body of `POST /portal/invitations`. */
export class CreateInvitationsDto {
  @ApiProperty({ type: [InvitationDto], minItems: 1, maxItems: MAX_INVITATIONS })
  @IsArray()
  @ArrayMinSize(1, { message: 'invitations must hold at least one invitation' })
  @ArrayMaxSize(MAX_INVITATIONS, { message: `invitations must hold at most ${MAX_INVITATIONS} invitations` })
  @NestedDto(() => InvitationDto, { each: true })
  invitations: InvitationDto[];
}

export class InvitationView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  emailAddress: string;

  @ApiProperty({ description: 'False when a pending invitation of this address already existed (its id is returned)' })
  created: boolean;
}

export class InvitationsCreatedView {
  @ApiProperty({ type: [InvitationView] })
  invitations: InvitationView[];
}
