export {
  DEFAULT_TOLERANCE_SECONDS,
  HEADER_AUTHORIZATION,
  HEADER_TIMESTAMP,
  HEADER_WEBHOOK_ID,
  HEADER_WEBHOOK_SIGNATURE,
  HEADER_WEBHOOK_TIMESTAMP,
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_SIGNING_SECRETS,
  MAX_WEBHOOK_ID_LENGTH,
  STALE_PROBE_AGE_SECONDS,
} from './constants.js';
export type { HeaderSource } from './headers.js';
export {
  createRequestSigner,
  signRequest,
  type RequestSigner,
  type RequestSignerInput,
  type SchemeChoice,
  type SchemeSignedHeaders,
  type SignRequestInput,
  type SignedHeaders,
} from './sign.js';
export {
  computeHmacSignature,
  computeStandardWebhookSignature,
  hmacStringToSignPrefix,
  type HmacSignedParts,
  type RawBody,
} from './signature.js';
export { formatTimestamp, parseTimestamp, parseUnixSeconds, toUnixSeconds } from './timestamp.js';
export {
  verifyHmacRequest,
  verifyRequest,
  verifyStandardWebhook,
  type IncomingRequestLike,
  type VerifyFailureReason,
  type VerifyHmacRequestInput,
  type VerifyRequestInput,
  type VerifyResult,
  type VerifyStandardWebhookInput,
} from './verify.js';
export { HEADER_WEBHOOK_KEY_ID, KEY_ID_PATTERN, WELL_KNOWN_KEY_SET_PATH } from './constants.js';
export {
  computeV1aSignature,
  KeySet,
  publicJwk,
  type Ed25519Jwk,
  type JsonWebKeySet,
  type SigningKey,
} from './ed25519.js';
export { RemoteKeySet, type RemoteKeySetOptions } from './remote-key-set.js';
export {
  DEFAULT_SIGNATURE_SCHEMES,
  needsSecret,
  parseSignatureSchemes,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
} from './schemes.js';
export { generateSigningKeyEntry, generateSigningKeysJson, type PublishedKeyValidity, SigningKeyRing, type SigningKeyEntry } from './signing-keys.js';
export { verifyWithKeySet, type VerifyWithKeySetOptions } from './verify.js';
