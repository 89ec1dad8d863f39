import { type PortalPrincipal, requireOrganisationAdmin } from '@availability/auth';

// The portal guard is shared with the other services that serve portal pages (libs/auth).
export { CurrentPortalUser, type PortalPrincipal, PortalUserGuard } from '@availability/auth';

/** Changes to the company profile are for the organisation's admins only. */
export function assertOrganisationAdmin(user: PortalPrincipal, change = 'the company profile'): void {
  requireOrganisationAdmin(user, change);
}
