import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventSubject, type InviteCreatedEvent } from '@availability/contracts';
import { appendToOutbox, newEvent, OutboxRelay, outboxMessage } from '@availability/messaging';
import { type FieldErrors, ProblemException } from '@availability/service-core';
import { DIRECTORY_SCHEMA } from '../directory/directory.repository.js';
import type { PortalPrincipal } from '../portal/portal-auth.guard.js';
import { type NewInvitation, PortalRepository } from '../portal/portal.repository.js';
import type { CreateInvitationsDto, InvitationsCreatedView } from './invitations.dto.js';

type InviteBody = Omit<InviteCreatedEvent, 'eventId' | 'occurredAt' | 'organisationId'>;

/**
 * Invitations to join as a worker. One pending invitation per organisation and e-mail address
 * (ignoring case): inviting again returns the same id and sends nothing. Each new invitation and
 * its `invites.created` event commit together (outbox); notification-service sends the e-mail.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly repository: PortalRepository,
    private readonly relay: OutboxRelay,
  ) {}

  async invite(user: PortalPrincipal, dto: CreateInvitationsDto): Promise<InvitationsCreatedView> {
    const inviter = await this.repository.portalUser(user.userId);
    if (!inviter) throw ProblemException.unauthorized('The portal user no longer exists.');

    const unique = new Map<string, NewInvitation>();
    for (const invitation of dto.invitations) {
      const key = invitation.emailAddress.toLowerCase();
      if (unique.has(key)) continue;
      unique.set(key, {
        id: randomUUID(),
        name: invitation.name.trim(),
        email: invitation.emailAddress,
        suggestedByOrganisationId: invitation.suggestedByOrganisationId?.toLowerCase() ?? null,
      });
    }
    const invitations = [...unique.values()];
    await this.assertSuggestersExist(dto);

    const { results, messages } = await this.repository.transaction(async (manager) => {
      const recorded = await this.repository.insertInvitations(manager, user.organisationId, user.userId, invitations);
      const messages = recorded
        .filter((entry) => entry.created)
        .map((entry) => {
          const invitation = invitations.find((i) => i.id === entry.id) as NewInvitation;
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
        });
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
