import { ApiProperty } from '@nestjs/swagger';
import { ORGANISATION_KINDS } from './create-organisation.dto.js';
import { PORTAL_USER_ROLES } from './create-portal-user.dto.js';
import type { OrganisationKind, PortalUserRole } from '../../directory/directory.repository.js';

export class ApiKeyView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'apk_…', description: 'Shown once; only its SHA-256 is stored' })
  key: string;
}

export class OrganisationCreatedView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ORGANISATION_KINDS })
  kind: OrganisationKind;

  @ApiProperty({ type: ApiKeyView, description: "The organisation's first API key" })
  apiKey: ApiKeyView;
}

export class SuggestionProviderApprovalView {
  @ApiProperty({ format: 'uuid' })
  organisationId: string;

  @ApiProperty({ enum: ORGANISATION_KINDS })
  kind: OrganisationKind;

  @ApiProperty({ description: 'Whether an operator approved the organisation as a contact-suggestion provider' })
  suggestionProviderApproved: boolean;

  @ApiProperty({ description: 'Whether its searches may be answered: an integrator, or approved' })
  mayProvideSuggestions: boolean;
}

export class PortalUserView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organisationId: string;

  @ApiProperty()
  email: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: PORTAL_USER_ROLES })
  role: PortalUserRole;
}

export class WorkerCreatedView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  email: string | null;

  @ApiProperty({ example: 'wkt_…', description: 'Worker token for the worker app; shown once' })
  token: string;
}

export class WorkersCreatedView {
  @ApiProperty({ type: [WorkerCreatedView] })
  workers: WorkerCreatedView[];
}

export class WorkerTokenView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'wkt_…', description: 'Shown once; only its SHA-256 is stored' })
  token: string;
}

export class PortalUserTokenView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'put_…', description: "Portal user's sign-in token (Authorization: Bearer); shown once, only its SHA-256 is stored" })
  token: string;
}
