/**
 * Who is signed in, as the portal shows it (`GET /session`). The token itself is never given to the
 * page. Shared by the service and the web application, so both speak of the same shape.
 */
export interface SignedInPerson {
  kind: 'portal-user' | 'worker';
  id: string;
  name: string;
  /** Portal users: their organisation and role in it. */
  organisationId?: string;
  organisationName?: string;
  role?: 'admin' | 'member';
  /** Workers: the organisations they work with, which send them offers (offers-api knows only their ids). */
  organisations?: Array<{ id: string; name: string }>;
  expiresAt: string;
}
