/**
 * Request/reply messages answered by contact-directory over NATS (`RequestReply` in libs/messaging;
 * subjects carry the deployment's NATS_SUBJECT_PREFIX).
 * Other services cache the answers; the directory owns the data.
 */
export const DirectoryPattern = {
  VerifyCredential: 'directory.credentials.verify',
  ResolveOfferAudience: 'directory.offer-audience.resolve',
  ResolveWebhookTarget: 'directory.webhook-target.resolve',
  ResolveOrganisationContacts: 'directory.organisation-contacts.resolve',
} as const;

/** Core NATS broadcast: an organisation's webhook base URL or secrets changed; drop cached targets. */
export const WEBHOOK_TARGET_CHANGED_SUBJECT = 'directory.webhook-target.changed';

/** Core NATS broadcast: drop any cached verdict for this credential now. */
export const CREDENTIAL_REVOKED_SUBJECT = 'directory.credentials.revoked';

/** Credentials travel only as SHA-256 hex of the presented token; the token itself never leaves the caller. */
export interface VerifyCredentialRequest {
  tokenHash: string;
}

export type CredentialVerdict =
  | { kind: 'organisation'; organisationId: string; apiKeyId: string }
  | { kind: 'worker'; workerId: string }
  /** A signed-in portal user (hirer/agency/integrator staff) using the portal's APIs. */
  | { kind: 'user'; userId: string; organisationId: string; role: 'admin' | 'member' }
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

export interface ResolveWebhookTargetRequest {
  organisationId: string;
}

/**
 * Where and how to call an organisation's service. `baseUrl` null: the organisation has no saved
 * base URL and gets no calls. `secrets` are the signing secrets in clear, newest first; two during a
 * rotation's grace period. Only the webhook dispatcher asks for this.
 */
export interface ResolveWebhookTargetReply {
  baseUrl: string | null;
  secrets: string[];
  /**
   * How the organisation's calls are signed (`hmac`, `v1`, `v1a`; see libs/webhook-signing
   * SignatureScheme). Absent (a directory older than this field) means `["hmac", "v1"]`.
   */
  signatureSchemes?: string[];
}

export interface WebhookTargetChangedMessage {
  organisationId: string;
}

export interface ResolveOrganisationContactsRequest {
  organisationId: string;
}

/** Who to tell about an organisation's account (e.g. its webhooks were disabled). */
export interface ResolveOrganisationContactsReply {
  name: string | null;
  adminEmailAddresses: string[];
}
