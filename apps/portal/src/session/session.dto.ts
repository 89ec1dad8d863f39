import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, Matches, MaxLength } from 'class-validator';

export class SignInLinkRequest {
  @ApiProperty({ example: 'ada@hirer.example', maxLength: 320 })
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email: string;

  @ApiProperty({ enum: ['portal', 'worker'], description: 'portal: a portal user of an organisation; worker: the worker app' })
  @IsIn(['portal', 'worker'], { message: 'audience must be portal or worker' })
  audience: 'portal' | 'worker';
}

export class SignInWithCode {
  @ApiProperty({ description: 'The code from the e-mailed link (the part after #code=)', example: 'q3Yh…', maxLength: 100 })
  @IsString()
  @MaxLength(100)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'code must be the code from the e-mailed link' })
  code: string;
}

export class SignInLinkAccepted {
  @ApiProperty({ example: 'If the address belongs to an account, a sign-in link is on its way.' })
  message: string;
}

export class SignedInPersonView {
  @ApiProperty({ enum: ['portal-user', 'worker'] })
  kind: 'portal-user' | 'worker';

  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Portal users only' })
  organisationId?: string;

  @ApiPropertyOptional({ example: 'Harbour Staffing', description: 'Portal users only' })
  organisationName?: string;

  @ApiPropertyOptional({ enum: ['admin', 'member'], description: 'Portal users only' })
  role?: 'admin' | 'member';

  @ApiProperty({ format: 'date-time', description: 'When the session ends; sign in again after it' })
  expiresAt: string;
}
