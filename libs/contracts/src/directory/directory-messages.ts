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
 * base URL and gets no calls. `secrets` are the signing secrets, newest first; two during a
 * rotation's grace period. This is what the webhook dispatcher holds after opening the reply; the
 * secrets never cross the bus in clear.
 */
export interface WebhookTarget {
  baseUrl: string | null;
  secrets: string[];
  /**
   * How the organisation's calls are signed (`hmac`, `v1`, `v1a`; see libs/webhook-signing
   * SignatureScheme). Absent (a directory older than this field) means `["hmac", "v1"]`.
   */
  signatureSchemes?: string[];
}

/**
 * The answer to ResolveWebhookTarget. `sealedTarget` is base64 of a NaCl box (X25519 +
 * XSalsa20-Poly1305) from contact-directory's xkey to the dispatcher's, of the JSON
 * `SealedWebhookTarget`: only the dispatcher can open it, and only if the directory sealed it
 * (libs/messaging webhook-target-seal.ts). Null when the organisation gets no calls.
 */
export interface ResolveWebhookTargetReply {
  baseUrl: string | null;
  sealedTarget: string | null;
}

/** What is sealed: the target, bound to the organisation it was asked for (a reply for another one is refused). */
export interface SealedWebhookTarget extends WebhookTarget {
  organisationId: string;
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
