import type { ResolveWebhookTargetReply, SealedWebhookTarget, WebhookTarget } from '@availability/contracts';
import type { SealedBox } from './sealed-box.js';

/** contact-directory's side: the reply to ResolveWebhookTarget, secrets sealed for the dispatcher's key. */
export function sealWebhookTarget(box: SealedBox, dispatcherKey: string, organisationId: string, target: WebhookTarget): ResolveWebhookTargetReply {
  if (!target.baseUrl || target.secrets.length === 0) return { baseUrl: null, sealedTarget: null };
  const sealed: SealedWebhookTarget = { organisationId, baseUrl: target.baseUrl, secrets: target.secrets, signatureSchemes: target.signatureSchemes };
  return { baseUrl: target.baseUrl, sealedTarget: box.seal(JSON.stringify(sealed), dispatcherKey) };
}

export class UnsealableWebhookTargetError extends Error {}

/**
 * The dispatcher's side: the target inside a reply, if the directory's key sealed it for this
 * organisation and this base URL; throws otherwise (wrong keys, altered, or another organisation's).
 */
export function openWebhookTarget(box: SealedBox, directoryKey: string, organisationId: string, reply: ResolveWebhookTargetReply): WebhookTarget {
  if (typeof reply?.sealedTarget !== 'string') return { baseUrl: null, secrets: [] };
  const opened = box.open(reply.sealedTarget, directoryKey);
  if (opened === undefined) throw new UnsealableWebhookTargetError('the webhook target does not open with our key and the directory key (keys out of step?)');
  let sealed: Partial<SealedWebhookTarget>;
  try {
    sealed = JSON.parse(opened) as Partial<SealedWebhookTarget>;
  } catch {
    throw new UnsealableWebhookTargetError('the sealed webhook target is not JSON');
  }
  if (sealed.organisationId !== organisationId || sealed.baseUrl !== reply.baseUrl) {
    throw new UnsealableWebhookTargetError('the sealed webhook target belongs to another organisation or base URL');
  }
  const secrets = Array.isArray(sealed.secrets) ? sealed.secrets.filter((s): s is string => typeof s === 'string' && s !== '') : [];
  const signatureSchemes = Array.isArray(sealed.signatureSchemes) ? sealed.signatureSchemes.filter((s): s is string => typeof s === 'string') : undefined;
  return { baseUrl: typeof sealed.baseUrl === 'string' && sealed.baseUrl !== '' ? sealed.baseUrl : null, secrets, signatureSchemes };
}
