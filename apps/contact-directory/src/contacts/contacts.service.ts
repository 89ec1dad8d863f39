import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type ContactAddedEvent, EventSubject, type WorkerContactsView, isUuid } from '@availability/contracts';
import { appendToOutbox, newEvent, OutboxRelay, outboxMessage } from '@availability/messaging';
import { ProblemException } from '@availability/service-core';
import { DIRECTORY_SCHEMA } from '../directory/directory.repository.js';
import { PortalRepository } from '../portal/portal.repository.js';

/**
 * A worker's contacts: organisations it shares its availability with. Adding one is idempotent;
 * only the first addition writes `contacts.added` (outbox, same transaction), which makes the
 * dispatcher call `GET {base}/contact/new/{workerId}` on that organisation's service.
 */
@Injectable()
export class ContactsService {
  constructor(
    private readonly repository: PortalRepository,
    private readonly relay: OutboxRelay,
  ) {}

  async add(workerId: string, organisationId: string): Promise<{ contact: { id: string; organisationId: string }; created: boolean }> {
    if (!isUuid(organisationId)) throw ProblemException.notFound('The organisation');
    const target = organisationId.toLowerCase();
    const result = await this.repository.transaction(async (manager) => {
      const added = await this.repository.addContact(manager, randomUUID(), workerId, target);
      if (!added.found) throw ProblemException.notFound('The organisation');
      if (!added.created) return { ...added, message: undefined };
      const event = newEvent<Pick<ContactAddedEvent, 'contactId' | 'workerId'>>(target, { contactId: added.id as string, workerId });
      const message = outboxMessage(EventSubject.ContactAdded, event);
      await appendToOutbox(manager, DIRECTORY_SCHEMA, [message]);
      return { ...added, message };
    });
    if (result.message) this.relay.publishCommitted([result.message]);
    return { contact: { id: result.id as string, organisationId: target }, created: result.created };
  }

  async list(workerId: string): Promise<WorkerContactsView> {
    const rows = await this.repository.contacts(workerId);
    return { contacts: rows.map((row) => ({ ...row, addedAt: new Date(row.addedAt).toISOString() })) };
  }
}
