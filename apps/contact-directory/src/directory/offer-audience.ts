import type { ResolveOfferAudienceReply } from '@availability/contracts';
import { isCanonicalUuid } from './ids.js';

/**
 * A ResolveOfferAudience request as received from the wire: anything may be missing or of the
 * wrong type. Malformed parts are not errors, they are simply unknown.
 */
export interface AudienceQuery {
  /** A uuid, or undefined when the request's organisationId is not one (then nothing is known). */
  organisationId?: string;
  /** A uuid, or undefined when the request's userId is not one (then the user is unknown). */
  userId?: string;
  /** The requested worker ids as given (non-strings become their String form), in request order. */
  requested: string[];
  /** The distinct requested ids that are uuids: the only ones worth asking the database about. */
  lookup: string[];
}

export function parseAudienceRequest(raw: unknown): AudienceQuery {
  const request = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const organisationId = isCanonicalUuid(request.organisationId) ? request.organisationId : undefined;
  const userId = isCanonicalUuid(request.userId) ? request.userId : undefined;
  const given: unknown[] = Array.isArray(request.workerIds) ? request.workerIds : [];
  const requested = given.map((id) => (typeof id === 'string' ? id : String(id)));
  const lookup = organisationId ? [...new Set(requested.filter((id) => isCanonicalUuid(id)))] : [];
  return { organisationId, userId, requested, lookup };
}

/** The reply: requested workers linked to the organisation (with names), and the rest, both in request order. */
export function audienceReply(query: AudienceQuery, userKnown: boolean, names: ReadonlyMap<string, string>): ResolveOfferAudienceReply {
  const workers: ResolveOfferAudienceReply['workers'] = [];
  const unknownWorkerIds: string[] = [];
  for (const workerId of query.requested) {
    const name = names.get(workerId);
    if (name === undefined) unknownWorkerIds.push(workerId);
    else workers.push({ workerId, name });
  }
  return { userKnown, workers, unknownWorkerIds };
}
