import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, MaxLength } from 'class-validator';
import { SIGN_IN_AUDIENCES, type SignInAudience } from '../notifications/notification-messages.js';

/** contact-directory's sign-in API; the portal reads its answers. Body of `POST /sign-in/links`. */
export class SignInLinksDto {
  @ApiProperty({ maxLength: 320, example: 'sam@acme.example' })
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email: string;

  @ApiProperty({ enum: SIGN_IN_AUDIENCES, description: 'portal: the address’s portal users (one link per organisation); worker: its worker accounts', example: 'portal' })
  @IsIn(SIGN_IN_AUDIENCES, { message: `audience must be one of: ${SIGN_IN_AUDIENCES.join(', ')}` })
  audience: SignInAudience;
}

/** The same answer whatever the address, so nobody learns who has an account. */
export class SignInLinksAcceptedView {
  @ApiProperty({ example: 'If the address belongs to an account, an e-mail with a sign-in link is on its way.' })
  message: string;
}

/** Body of `POST /sign-in/sessions`. */
export class SignInSessionDto {
  @ApiProperty({ maxLength: 100, description: 'The code of a sign-in link (after `#code=`)', example: 'q7GQ0mJx1o3lqJ4n0cZ8k0wQpV9tYv2Qm1nXk5sVv8A' })
  @IsString()
  @MaxLength(100)
  code: string;
}

export class SignedInUserView {
  @ApiProperty({ format: 'uuid', example: '0b5c3a44-5a5e-4f58-9a63-2f7b9d2c4e11' })
  id: string;

  @ApiProperty({ example: 'Sam Example' })
  name: string;

  @ApiProperty({ example: 'sam@acme.example' })
  email: string;

  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ example: 'Acme Staffing' })
  organisationName: string;

  @ApiProperty({ enum: ['admin', 'member'], example: 'admin' })
  role: 'admin' | 'member';
}

export class SignedInWorkerOrganisationView {
  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ example: 'Acme Staffing' })
  organisationName: string;
}

export class SignedInWorkerView {
  @ApiProperty({ format: 'uuid', example: '5a567525-ce25-429c-a170-50c3f48e5204' })
  id: string;

  @ApiProperty({ example: 'Ann Example' })
  name: string;

  @ApiProperty({ type: String, nullable: true, example: 'ann@example.com' })
  email: string | null;

  @ApiProperty({ type: [SignedInWorkerOrganisationView], description: 'The organisations the worker works with, by name' })
  organisations: SignedInWorkerOrganisationView[];
}

export const SESSION_KINDS = ['portal-user', 'worker'] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

/** The answer to `POST /sign-in/sessions`: a new token, shown once. */
export class SignInSessionView {
  @ApiProperty({ example: 'put_…', description: 'A portal-user (put_…) or worker (wkt_…) token for Authorization: Bearer; shown once, only its SHA-256 is stored' })
  token: string;

  @ApiProperty({ enum: SESSION_KINDS, example: 'portal-user' })
  kind: SessionKind;

  @ApiProperty({ format: 'date-time', description: 'When the token stops working (PORTAL_SESSION_TTL_SECONDS, WORKER_SESSION_TTL_SECONDS)', example: '2026-11-26T21:25:18.758Z' })
  expiresAt: string;

  @ApiPropertyOptional({ type: SignedInUserView, description: 'For kind portal-user' })
  user?: SignedInUserView;

  @ApiPropertyOptional({ type: SignedInWorkerView, description: 'For kind worker' })
  worker?: SignedInWorkerView;
}
