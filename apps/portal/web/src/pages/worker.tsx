import { Link, useParams } from 'react-router';
import { api } from '../api';
import { useState } from 'react';
import { Badge, Done, Loading, NotFound, Page, Pager, Problem, type TimeSlot, TimeSlots, TimeZoneNote, When } from '../components';
import { useAction, useCursorPages, useLoad } from '../hooks';
import { useSession } from '../session';
import { WebPushSwitch } from './web-push';

interface WorkerOffer {
  id: string;
  organisationId: string;
  title: string;
  details: string;
  createdAt: string;
  events: TimeSlot[];
  response: 'awaiting' | 'applied' | 'rejected';
  confirmation: '' | 'successful' | 'unsuccessful' | 'withdrawn';
  complete: boolean;
  widthdrawn: boolean;
  isHistoric: boolean;
}

const OFFERS = '/api/offers/worker/offers';
const RESPONSE_TONE = { applied: 'good', rejected: 'bad', awaiting: 'wait' } as const;

/** The sending organisation's name, from the worker's session (offers-api has only its id). */
function useSender(): (offer: WorkerOffer) => string {
  const { person } = useSession();
  return (offer) => person?.organisations?.find((organisation) => organisation.id === offer.organisationId)?.name ?? 'an organisation you work with';
}

export function WorkerInboxPage() {
  const pages = useCursorPages();
  const query = pages.before ? `?${new URLSearchParams({ before: pages.before })}` : '';
  const offers = useLoad(() => api<{ offers: WorkerOffer[]; nextCursor: string | null }>(`${OFFERS}${query}`), [query], 5_000);
  const sender = useSender();
  return (
    <Page title="Your offers">
      <WebPushSwitch />
      <TimeZoneNote />
      <Problem text={offers.error} />
      {offers.value === undefined ? (
        <Loading what="offers" />
      ) : offers.value.offers.length === 0 ? (
        <p className="muted">No offers yet.</p>
      ) : (
        <ul className="cards">
          {offers.value.offers.map((offer) => (
            <li key={offer.id} className="card">
              <h2>
                <Link to={`/worker/offers/${offer.id}`} dir="auto">
                  {offer.title}
                </Link>
              </h2>
              <p className="sender">
                From <bdi>{sender(offer)}</bdi>
              </p>
              <p>
                <Badge tone={RESPONSE_TONE[offer.response]}>{offer.response}</Badge> {offer.confirmation && <Badge tone="plain">{offer.confirmation}</Badge>}
              </p>
              {offer.events[0] && (
                <p className="muted">
                  Starts <When at={offer.events[0].start} zoned />
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager pages={pages} nextCursor={offers.value?.nextCursor} label="Pages of your offers" />
    </Page>
  );
}

export function WorkerOfferPage() {
  const { offerId = '' } = useParams();
  const offer = useLoad(() => api<WorkerOffer>(`${OFFERS}/${encodeURIComponent(offerId)}`), [offerId], 5_000);
  const answer = useAction();
  const sender = useSender();
  // After answering, the choice is put away until the worker asks to change it (allowed while the offer is open).
  const [changing, setChanging] = useState(false);
  if (offer.notFound) {
    return (
      <NotFound title="Offer not found" back={{ to: '/worker', label: 'Back to your offers' }}>
        No offer sent to you is at this address.
      </NotFound>
    );
  }
  if (offer.value === undefined) return offer.error ? <Problem text={offer.error} /> : <Loading what="the offer" />;
  const current = offer.value;
  const canAnswer = !current.isHistoric && !current.complete && !current.widthdrawn;
  const respond = (response: 'applied' | 'rejected') =>
    void answer.run(async () => {
      offer.setValue(await api<WorkerOffer>(`${OFFERS}/${current.id}/response`, { method: 'PUT', body: { response } }));
      setChanging(false);
      return response === 'applied' ? 'You applied. The sender will let you know.' : 'You turned this offer down.';
    });
  return (
    <Page title={current.title}>
      <p className="sender">
        From <bdi>{sender(current)}</bdi>
      </p>
      <p>
        <Badge tone={RESPONSE_TONE[current.response]}>{current.response}</Badge> {current.confirmation && <Badge tone="plain">{current.confirmation}</Badge>}
      </p>
      {current.details && <p dir="auto">{current.details}</p>}
      <TimeSlots slots={current.events} zoned />
      <TimeZoneNote />
      {canAnswer && current.response !== 'awaiting' && !changing && (
        <div className="actions big">
          <button type="button" className="secondary" onClick={() => setChanging(true)}>
            Change your answer
          </button>
        </div>
      )}
      {canAnswer && (current.response === 'awaiting' || changing) && (
        <div className="actions big">
          <button type="button" disabled={answer.busy} onClick={() => respond('applied')}>
            Apply
          </button>
          <button type="button" className="secondary" disabled={answer.busy} onClick={() => respond('rejected')}>
            Reject
          </button>
        </div>
      )}
      <Problem text={answer.error} />
      <Done text={answer.done} />
      <p>
        <Link to="/worker">Back to your offers</Link>
      </p>
    </Page>
  );
}

interface WorkerNotification {
  id: number;
  kind: string;
  title: string;
  body: string;
  offerId: string;
  createdAt: string;
}

export function WorkerNotificationsPage() {
  const notifications = useLoad(() => api<{ notifications: WorkerNotification[] }>('/api/notifications/worker/notifications'), [], 10_000);
  return (
    <Page title="Notifications">
      <Problem text={notifications.error} />
      {notifications.value === undefined ? (
        <Loading what="notifications" />
      ) : notifications.value.notifications.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        <ul className="cards">
          {notifications.value.notifications.map((notification) => (
            <li key={notification.id} className="card">
              <h2>
                <Link to={`/worker/offers/${notification.offerId}`}>{notification.title}</Link>
              </h2>
              <p>{notification.body}</p>
              <p className="muted">
                <When at={notification.createdAt} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

interface Contact {
  id: string;
  organisationId: string;
  organisationName: string;
  addedAt: string;
}

export function WorkerContactsPage() {
  const contacts = useLoad(() => api<{ contacts: Contact[] }>('/api/directory/worker/contacts'));
  return (
    <Page title="Contacts">
      <p className="muted">Organisations you have shared your details with.</p>
      <Problem text={contacts.error} />
      {contacts.value === undefined ? (
        <Loading what="contacts" />
      ) : contacts.value.contacts.length === 0 ? (
        <p className="muted">No contacts yet.</p>
      ) : (
        <ul className="cards">
          {contacts.value.contacts.map((contact) => (
            <li key={contact.id} className="card">
              <p className="name" dir="auto">
                {contact.organisationName}
              </p>
              <p className="muted">
                Since <When at={contact.addedAt} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
