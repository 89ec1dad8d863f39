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
} from './constants.js';
export type { HeaderSource } from './headers.js';
export {
  createRequestSigner,
  signRequest,
  type RequestSigner,
  type RequestSignerInput,
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
