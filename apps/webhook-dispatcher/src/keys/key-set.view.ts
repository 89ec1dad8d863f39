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

/** A published key with its validity, as the portal's Signing keys page shows it. */
export class PublishedKeyView {
  @ApiProperty({ description: 'Key id: the webhook-key-id header of calls it signs', example: 'platform-2026-11' })
  kid: string;

  @ApiProperty({ description: 'The 32-byte public key, base64url without padding', example: 'gw-my5DlW5qlq4IWbbhC48ucJG85imj3tR1KR5I3ai4' })
  x: string;

  @ApiProperty({ description: 'It signs v1a calls now (else it is published so signatures made before a rotation still verify)', example: true })
  signs: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'From when it is no longer published; null: no end set', example: null })
  notAfter: string | null;
}

/** The key set's address as integrators reach it, and its keys. */
export class SigningKeysView {
  @ApiProperty({ format: 'uri', example: 'https://webhooks.platform.example/.well-known/webhook-keys.json' })
  keySetUrl: string;

  @ApiProperty({ type: [PublishedKeyView] })
  keys: PublishedKeyView[];
}
