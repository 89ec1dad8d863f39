/**
 * Request/reply messages answered by contact-directory over NATS (`RequestReply` in libs/messaging;
 * subjects carry the deployment's NATS_SUBJECT_PREFIX).
 * Other services cache the answers; the directory owns the data.
 */
export const DirectoryPattern = {
  VerifyCredential: 'directory.credentials.verify',
  ResolveOfferAudience: 'directory.offer-audience.resolve',
} as const;

/** Core NATS broadcast: drop any cached verdict for this credential now. */
export const CREDENTIAL_REVOKED_SUBJECT = 'directory.credentials.revoked';

/** Credentials travel only as SHA-256 hex of the presented token; the token itself never leaves the caller. */
export interface VerifyCredentialRequest {
  tokenHash: string;
}

export type CredentialVerdict =
  | { kind: 'organisation'; organisationId: string; apiKeyId: string }
  | { kind: 'worker'; workerId: string }
  | { kind: 'none' };

export interface CredentialRevokedMessage {
  tokenHash: string;
}

export interface ResolveOfferAudienceRequest {
  organisationId: string;
  userId: string;
  workerIds: string[];
}

export interface ResolveOfferAudienceReply {
  userKnown: boolean;
  workers: Array<{ workerId: string; name: string }>;
  unknownWorkerIds: string[];
}
