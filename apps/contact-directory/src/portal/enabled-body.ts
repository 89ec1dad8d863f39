import { ProblemException } from '@availability/service-core';

/** Body of the portal's on/off switches: offering contact suggestions, and searching a provider by default. */
export const ENABLED_BODY_SCHEMA = { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } } };

/** The `enabled` of such a body; 400 unless it is true or false. */
export function enabledOf(body: unknown): boolean {
  const enabled = (body as { enabled?: unknown } | null)?.enabled;
  if (typeof enabled !== 'boolean') throw ProblemException.field('enabled', 'enabled must be true or false');
  return enabled;
}
