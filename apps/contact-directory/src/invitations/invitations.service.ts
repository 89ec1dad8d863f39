import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventSubject, type InviteCreatedEvent } from '@availability/contracts';
import { appendToOutbox, newEvent, OutboxRelay, outboxMessage } from '@availability/messaging';
import { type FieldErrors, ProblemException } from '@availability/service-core';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { DIRECTORY_SCHEMA } from '../directory/directory.repository.js';
import type { PortalPrincipal } from '../portal/portal-auth.guard.js';
import { type NewInvitation, type PortalUserRecord, PortalRepository } from '../portal/portal.repository.js';
import { InvitationAllowance } from './invitation-allowance.js';
import type { CreateInvitationsDto, InvitationsCreatedView } from './invitations.dto.js';
import { InvitationsSentRepository } from './invitations-sent.repository.js';
import { tidyInviteeName } from './invitee-name.js';

type InviteBody = Omit<InviteCreatedEvent, 'eventId' | 'occurredAt' | 'organisationId'>;

/**
 * Invitations to join as a worker. One pending invitation per organisation and e-mail address
 * (ignoring case): inviting again returns the same id and sends nothing. Each new invitation and
 * its `invites.created` event commit together (outbox); notification-service sends the e-mail.
 * The e-mail goes to whoever is named, in the organisation's name: only its admins invite, and at
 * most INVITATIONS_PER_ORGANISATION_PER_DAY new invitations a day (InvitationAllowance).
 */
@Injectable()
export class InvitationsService {
  private readonly allowance: InvitationAllowance;

  constructor(
    private readonly repository: PortalRepository,
    private readonly sent: InvitationsSentRepository,
    private readonly relay: OutboxRelay,
    config: ContactDirectoryConfig,
  ) {
    this.allowance = new InvitationAllowance(config.INVITATIONS_PER_ORGANISATION_PER_DAY);
  }

  async invite(user: PortalPrincipal, dto: CreateInvitationsDto): Promise<InvitationsCreatedView> {
    if (user.role !== 'admin') throw new ProblemException(403, 'forbidden', 'Only an admin of the organisation can invite people.');
    const inviter = await this.repository.portalUser(user.userId);
    if (!inviter) throw ProblemException.unauthorized('The portal user no longer exists.');
    const invitations = uniqueInvitations(dto);
    await this.assertSuggestersExist(dto);

    const { results, messages } = await this.repository.transaction(async (manager) => {
      const recorded = await this.repository.insertInvitations(manager, user.organisationId, user.userId, invitations);
      const created = recorded.filter((entry) => entry.created);
      await this.count(manager, user.organisationId, created.length);
      const messages = created.map((entry) => inviteCreated(user, inviter, invitations.find((i) => i.id === entry.id) as NewInvitation));
      await appendToOutbox(manager, DIRECTORY_SCHEMA, messages);
      return { results: recorded, messages };
    });
    this.relay.publishCommitted(messages);

    const byEmail = new Map(results.map((entry) => [entry.email.toLowerCase(), entry]));
    // An address given twice in one request is one invitation: only its first mention reports it as created.
    const reported = new Set<string>();
    return {
      invitations: dto.invitations.map((invitation) => {
        const key = invitation.emailAddress.toLowerCase();
        const entry = byEmail.get(key) as { id: string; created: boolean };
        const created = entry.created && !reported.has(key);
        reported.add(key);
        return { id: entry.id, emailAddress: invitation.emailAddress, created };
      }),
    };
  }

  /** Counts the new invitations against today's allowance; past it, a 429 that rolls the whole request back. */
  private async count(manager: EntityManager, organisationId: string, created: number): Promise<void> {
    if (created === 0 || !this.allowance.limited) return;
    const taken = await this.sent.take(manager, organisationId, this.allowance.today(), created, this.allowance.perDay);
    if (!taken.taken) throw this.allowance.refusal(taken.sent, created);
  }

  private async assertSuggestersExist(dto: CreateInvitationsDto): Promise<void> {
    const ids = [...new Set(dto.invitations.flatMap((i) => (i.suggestedByOrganisationId ? [i.suggestedByOrganisationId.toLowerCase()] : [])))];
    const existing = await this.repository.existingOrganisations(ids);
    const errors: FieldErrors = {};
    dto.invitations.forEach((invitation, index) => {
      const id = invitation.suggestedByOrganisationId?.toLowerCase();
      if (id && !existing.has(id)) errors[`invitations[${index}].suggestedByOrganisationId`] = ['no such organisation'];
    });
    if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
  }
}

/** One invitation per address (ignoring case), the name tidied as the rule checked it. */
function uniqueInvitations(dto: CreateInvitationsDto): NewInvitation[] {
  const unique = new Map<string, NewInvitation>();
  for (const invitation of dto.invitations) {
    const key = invitation.emailAddress.toLowerCase();
    if (unique.has(key)) continue;
    unique.set(key, {
      id: randomUUID(),
      name: tidyInviteeName(invitation.name),
      email: invitation.emailAddress,
      suggestedByOrganisationId: invitation.suggestedByOrganisationId?.toLowerCase() ?? null,
    });
  }
  return [...unique.values()];
}

function inviteCreated(user: PortalPrincipal, inviter: PortalUserRecord, invitation: NewInvitation) {
  const event = newEvent<InviteBody>(user.organisationId, {
    inviteId: invitation.id,
    invitedByUserId: user.userId,
    invitedByName: inviter.name,
    organisationName: inviter.organisationName,
    name: invitation.name,
    emailAddress: invitation.email,
    suggestedByOrganisationId: invitation.suggestedByOrganisationId,
  });
  return outboxMessage(EventSubject.InviteCreated, event);
}
