import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { SignatureScheme } from '@availability/webhook-signing';

export interface StoredProfile {
  baseUrl: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
  suggestionsEnabled: boolean;
  savedAt: Date;
  signatureSchemes: SignatureScheme[];
  /** Why the last check found the endpoint not verifying; null when it passed. */
  verificationWarning: string | null;
}

export interface StoredTarget {
  organisationId: string;
  name: string;
  baseUrl: string;
  secretSealed: string;
  /** Only while the rotation grace period runs (judged by the database clock). */
  previousSecretSealed: string | null;
  signatureSchemes: SignatureScheme[];
}

export interface PortalUserRecord {
  id: string;
  organisationId: string;
  email: string;
  name: string;
  organisationName: string;
}

export interface NewInvitation {
  id: string;
  name: string;
  email: string;
  suggestedByOrganisationId: string | null;
}

const PROFILE_COLUMNS = `webhook_base_url AS "baseUrl", secret_sealed AS "secretSealed",
  previous_secret_sealed AS "previousSecretSealed", previous_secret_until AS "previousSecretUntil",
  suggestions_enabled AS "suggestionsEnabled", saved_at AS "savedAt", signature_schemes AS "signatureSchemes",
  verification_warning AS "verificationWarning"`;

const TARGET_COLUMNS = `p.organisation_id::text AS "organisationId", o.name, p.webhook_base_url AS "baseUrl", p.secret_sealed AS "secretSealed",
  CASE WHEN p.previous_secret_until > now() THEN p.previous_secret_sealed END AS "previousSecretSealed",
  p.signature_schemes AS "signatureSchemes"`;

/** Integrators offer suggestions by kind; any other organisation once an operator approved it. */
const MAY_PROVIDE_SUGGESTIONS = `(o.kind = 'integrator' OR o.suggestion_provider_approved)`;

/**
 * SQL of the portal features: company profile, suggestion providers, invitations, workers' contacts.
 * Ids are known uuids. UPDATE/DELETE … RETURNING is wrapped in a CTE (TypeORM returns `[rows, count]` otherwise).
 */
@Injectable()
export class PortalRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('READ COMMITTED', work);
  }

  async profile(organisationId: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<StoredProfile | undefined> {
    const rows: StoredProfile[] = await manager.query(
      `SELECT ${PROFILE_COLUMNS} FROM directory.company_profile WHERE organisation_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [organisationId],
    );
    return rows[0];
  }

  /**
   * Saves URL and secret; `previous` is the secret that keeps signing for `graceSeconds` (null: none);
   * `signatureSchemes` undefined keeps the saved choice (a new profile gets the column's default);
   * `verificationWarning` replaces the last one (null: this check passed).
   */
  async saveWebhook(
    manager: EntityManager,
    organisationId: string,
    userId: string,
    baseUrl: string,
    secretSealed: string,
    previous: { sealed: string; graceSeconds: number } | { keep: true } | null,
    signatureSchemes: SignatureScheme[] | undefined,
    verificationWarning: string | null,
  ): Promise<StoredProfile> {
    const keep = previous !== null && 'keep' in previous;
    const sealed = previous !== null && 'sealed' in previous ? previous.sealed : null;
    const grace = previous !== null && 'sealed' in previous ? previous.graceSeconds : 0;
    const rows: StoredProfile[] = await manager.query(
      `INSERT INTO directory.company_profile AS p
         (organisation_id, webhook_base_url, secret_sealed, previous_secret_sealed, previous_secret_until, saved_at, saved_by_user_id, signature_schemes, verification_warning)
       VALUES ($1, $2, $3, $4::text, CASE WHEN $4::text IS NULL THEN NULL ELSE now() + make_interval(secs => $5) END, now(), $6,
               COALESCE($8::text[], '{hmac,v1}'), $9::text)
       ON CONFLICT (organisation_id) DO UPDATE SET
         webhook_base_url = EXCLUDED.webhook_base_url,
         secret_sealed = EXCLUDED.secret_sealed,
         previous_secret_sealed = CASE WHEN $7 THEN p.previous_secret_sealed ELSE EXCLUDED.previous_secret_sealed END,
         previous_secret_until = CASE WHEN $7 THEN p.previous_secret_until ELSE EXCLUDED.previous_secret_until END,
         saved_at = now(),
         saved_by_user_id = EXCLUDED.saved_by_user_id,
         signature_schemes = COALESCE($8::text[], p.signature_schemes),
         verification_warning = EXCLUDED.verification_warning
       RETURNING ${PROFILE_COLUMNS}`,
      [organisationId, baseUrl, secretSealed, sealed, grace, userId, keep, signatureSchemes ?? null, verificationWarning],
    );
    return rows[0];
  }

  async deleteWebhook(organisationId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH deleted AS (DELETE FROM directory.company_profile WHERE organisation_id = $1 RETURNING organisation_id)
       SELECT organisation_id FROM deleted`,
      [organisationId],
    );
    return rows.length > 0;
  }

  /** The updated profile, or undefined when the organisation has no saved base URL. */
  async setSuggestionsEnabled(organisationId: string, enabled: boolean): Promise<StoredProfile | undefined> {
    const rows: StoredProfile[] = await this.dataSource.query(
      `WITH updated AS (
         UPDATE directory.company_profile SET suggestions_enabled = $2 WHERE organisation_id = $1 RETURNING *
       )
       SELECT ${PROFILE_COLUMNS} FROM updated`,
      [organisationId, enabled],
    );
    return rows[0];
  }

  async webhookTarget(organisationId: string): Promise<StoredTarget | undefined> {
    const rows: StoredTarget[] = await this.dataSource.query(
      `SELECT ${TARGET_COLUMNS} FROM directory.company_profile p JOIN directory.organisation o ON o.id = p.organisation_id
       WHERE p.organisation_id = $1`,
      [organisationId],
    );
    return rows[0];
  }

  async organisationContacts(organisationId: string): Promise<{ name: string; adminEmailAddresses: string[] } | undefined> {
    const rows: Array<{ name: string; adminEmailAddresses: string[] }> = await this.dataSource.query(
      `SELECT o.name,
              COALESCE(ARRAY(SELECT u.email::text FROM directory.portal_user u
                             WHERE u.organisation_id = o.id AND u.role = 'admin' ORDER BY u.created_at, u.email), '{}') AS "adminEmailAddresses"
       FROM directory.organisation o WHERE o.id = $1`,
      [organisationId],
    );
    return rows[0];
  }

  /**
   * Organisations that answer contact-suggestion searches, by name; `ids` null = all of them. A
   * provider offers suggestions on its profile and is an integrator or approved by an operator.
   */
  async suggestionProviders(ids: string[] | null): Promise<StoredTarget[]> {
    return this.dataSource.query(
      `SELECT ${TARGET_COLUMNS} FROM directory.company_profile p JOIN directory.organisation o ON o.id = p.organisation_id
       WHERE p.suggestions_enabled AND ${MAY_PROVIDE_SUGGESTIONS}
         AND ($1::uuid[] IS NULL OR p.organisation_id = ANY($1::uuid[]))
       ORDER BY o.name, o.id`,
      [ids],
    );
  }

  /** Whether the organisation may offer contact suggestions at all (see suggestionProviders). */
  async mayProvideSuggestions(organisationId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM directory.organisation o WHERE o.id = $1 AND ${MAY_PROVIDE_SUGGESTIONS}`, [
      organisationId,
    ]);
    return rows.length > 0;
  }

  /** The providers this organisation's searches go to when they name none. */
  async chosenProviders(organisationId: string): Promise<Set<string>> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT provider_organisation_id::text AS id FROM directory.suggestion_provider_choice WHERE organisation_id = $1`,
      [organisationId],
    );
    return new Set(rows.map((row) => row.id));
  }

  async chooseProvider(organisationId: string, providerId: string, userId: string, enabled: boolean): Promise<void> {
    if (enabled) {
      await this.dataSource.query(
        `INSERT INTO directory.suggestion_provider_choice (organisation_id, provider_organisation_id, enabled_by_user_id)
         VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [organisationId, providerId, userId],
      );
    } else {
      await this.dataSource.query(`DELETE FROM directory.suggestion_provider_choice WHERE organisation_id = $1 AND provider_organisation_id = $2`, [
        organisationId,
        providerId,
      ]);
    }
  }

  async portalUser(userId: string): Promise<PortalUserRecord | undefined> {
    const rows: PortalUserRecord[] = await this.dataSource.query(
      `SELECT u.id::text, u.organisation_id::text AS "organisationId", u.email, u.name, o.name AS "organisationName"
       FROM directory.portal_user u JOIN directory.organisation o ON o.id = u.organisation_id WHERE u.id = $1`,
      [userId],
    );
    return rows[0];
  }

  /** Which of these ids are organisations. */
  async existingOrganisations(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id::text FROM directory.organisation WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Records the invitations (one per e-mail address, ignoring case); an address with a pending
   * invitation of the organisation keeps it. Returns every address's invitation id and whether it is new.
   * Inserted in address order: two requests inviting the same people in other orders would deadlock.
   */
  async insertInvitations(
    manager: EntityManager,
    organisationId: string,
    userId: string,
    invitations: NewInvitation[],
  ): Promise<Array<{ id: string; email: string; created: boolean }>> {
    const inserted: Array<{ id: string }> = await manager.query(
      `INSERT INTO directory.invitation (id, organisation_id, invited_by_user_id, name, email, suggested_by_organisation_id)
       SELECT i.id, $1, $2, i.name, i.email, i.suggested
       FROM unnest($3::uuid[], $4::varchar[], $5::varchar[], $6::uuid[]) AS i (id, name, email, suggested)
       ORDER BY lower(i.email)
       ON CONFLICT (organisation_id, lower(email)) WHERE status = 'pending' DO NOTHING
       RETURNING id::text`,
      [
        organisationId,
        userId,
        invitations.map((i) => i.id),
        invitations.map((i) => i.name),
        invitations.map((i) => i.email),
        invitations.map((i) => i.suggestedByOrganisationId),
      ],
    );
    const created = new Set(inserted.map((row) => row.id));
    const all: Array<{ id: string; email: string }> = await manager.query(
      `SELECT id::text, lower(email) AS email FROM directory.invitation
       WHERE organisation_id = $1 AND status = 'pending' AND lower(email) = ANY($2::text[])`,
      [organisationId, invitations.map((i) => i.email.toLowerCase())],
    );
    const byEmail = new Map(all.map((row) => [row.email, row.id]));
    return invitations.map((i) => {
      const id = byEmail.get(i.email.toLowerCase()) ?? i.id;
      return { id, email: i.email, created: created.has(id) };
    });
  }

  /** Adds the contact (again is harmless). `found` false: no such organisation; `created`: newly added. */
  async addContact(manager: EntityManager, contactId: string, workerId: string, organisationId: string): Promise<{ found: boolean; id?: string; created: boolean }> {
    const rows: Array<{ found: boolean; insertedId: string | null; existingId: string | null }> = await manager.query(
      `WITH target AS (SELECT id FROM directory.organisation WHERE id = $3),
       inserted AS (
         INSERT INTO directory.worker_contact (id, worker_id, organisation_id)
         SELECT $1, $2, id FROM target
         ON CONFLICT (worker_id, organisation_id) DO NOTHING
         RETURNING id
       )
       SELECT EXISTS (SELECT 1 FROM target) AS found,
              (SELECT id::text FROM inserted) AS "insertedId",
              (SELECT id::text FROM directory.worker_contact WHERE worker_id = $2 AND organisation_id = $3) AS "existingId"`,
      [contactId, workerId, organisationId],
    );
    const row = rows[0];
    return { found: row.found, id: row.insertedId ?? row.existingId ?? undefined, created: row.insertedId !== null };
  }

  async contacts(workerId: string): Promise<Array<{ id: string; organisationId: string; organisationName: string; addedAt: Date }>> {
    return this.dataSource.query(
      `SELECT c.id::text, c.organisation_id::text AS "organisationId", o.name AS "organisationName", c.created_at AS "addedAt"
       FROM directory.worker_contact c JOIN directory.organisation o ON o.id = c.organisation_id
       WHERE c.worker_id = $1 ORDER BY c.created_at, c.id`,
      [workerId],
    );
  }
}
