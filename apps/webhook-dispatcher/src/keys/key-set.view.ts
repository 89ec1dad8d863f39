import { ApiProperty } from '@nestjs/swagger';

/** A public ed25519 key as a JWK (RFC 8037). */
export class SigningKeyView {
  @ApiProperty({ enum: ['OKP'], example: 'OKP' })
  kty: 'OKP';

  @ApiProperty({ enum: ['Ed25519'], example: 'Ed25519' })
  crv: 'Ed25519';

  @ApiProperty({ description: 'The 32-byte public key, base64url without padding', pattern: '^[A-Za-z0-9_-]{43}$', example: 'gw-my5DlW5qlq4IWbbhC48ucJG85imj3tR1KR5I3ai4' })
  x: string;

  @ApiProperty({ description: 'Key id: the webhook-key-id header of calls it signs', example: 'platform-2026-11' })
  kid: string;

  @ApiProperty({ enum: ['sig'], example: 'sig' })
  use: 'sig';

  @ApiProperty({ enum: ['EdDSA'], example: 'EdDSA' })
  alg: 'EdDSA';
}

/** A JWKS document: every configured key not past its notAfter. */
export class SigningKeySetView {
  @ApiProperty({ type: [SigningKeyView] })
  keys: SigningKeyView[];
}
