import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../api';
import { Badge, ConfirmButton, Done, Loading, NotFound, Page, Pager, Problem, type TimeSlot, TimeSlots, When } from '../components';
import { useAction, useCursorPages, useLoad } from '../hooks';

interface Recipient {
  id: number;
  workerId: string;
  name?: string;
  response: 'awaiting' | 'applied' | 'rejected';
  respondedAt: string | null;
  confirmation: '' | 'successful' | 'unsuccessful' | 'withdrawn';
}

interface Offer {
  id: string;
  title: string;
  details: string;
  createdAt: string;
  complete: boolean;
  widthdrawn: boolean;
  isHistoric: boolean;
  events: TimeSlot[];
  status: 'open' | 'ended' | 'complete' | 'withdrawn';
  recipients: Recipient[];
}

interface OfferSummary {
  id: string;
  title: string;
  status: string;
  createdAt: string;
  recipientCount: number;
  answers: { applied: number; rejected: number; none: number };
}

const OFFERS = '/api/offers/portal/offers';
const RESPONSE_TONE = { applied: 'good', rejected: 'bad', awaiting: 'wait' } as const;
/** The statuses `GET /portal/offers?status=` filters by (offers-api's PORTAL_OFFER_STATUSES). */
const STATUSES = ['open', 'ended', 'complete', 'withdrawn'] as const;

export function OffersPage() {
  const [status, setStatus] = useState('');
  const pages = useCursorPages();
  const query = new URLSearchParams([...(status ? [['status', status]] : []), ...(pages.before ? [['before', pages.before]] : [])]);
  const offers = useLoad(() => api<{ offers: OfferSummary[]; nextCursor: string | null }>(`${OFFERS}?${query}`), [query.toString()], 5_000);
  return (
    <Page title="Offers">
      <form className="filters" aria-label="Filter offers" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.target.value);
              pages.reset();
            }}
          >
            <option value="">Any</option>
            {STATUSES.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
      </form>
      <Problem text={offers.error} />
      {offers.value === undefined ? (
        <Loading what="offers" />
      ) : offers.value.offers.length === 0 ? (
        <p className="muted">{status ? `No ${status} offers.` : 'No offers yet. Offers your organisation sends through the offers API appear here.'}</p>
      ) : (
        <div className="table-scroll">
          <table className="cards-on-phone">
            <caption className="visually-hidden">Your organisation’s offers, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Offer</th>
                <th scope="col">Sent</th>
                <th scope="col">Status</th>
                <th scope="col">Answers</th>
              </tr>
            </thead>
            <tbody>
              {offers.value.offers.map((offer) => (
                <tr key={offer.id}>
                  <td data-label="Offer">
                    <Link to={`/offers/${offer.id}`} dir="auto">
                      {offer.title}
                    </Link>
                  </td>
                  <td data-label="Sent">
                    <When at={offer.createdAt} />
                  </td>
                  <td data-label="Status">{offer.status}</td>
                  <td data-label="Answers">
                    {offer.answers.applied} applied · {offer.answers.rejected} rejected · {offer.answers.none} not yet, of {offer.recipientCount}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pages={pages} nextCursor={offers.value?.nextCursor} label="Pages of offers" />
    </Page>
  );
}

/** One offer, its recipients' answers refreshed every two seconds, and what the sender can do with it. */
export function OfferPage() {
  const { offerId = '' } = useParams();
  const offer = useLoad(() => api<Offer>(`${OFFERS}/${encodeURIComponent(offerId)}`), [offerId], 2_000);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const act = useAction();

  if (offer.notFound) {
    return (
      <NotFound title="Offer not found" back={{ to: '/offers', label: 'Back to the offers' }}>
        Your organisation has no offer at this address: it may be mistyped, or the offer belongs to another organisation.
      </NotFound>
    );
  }
  if (offer.value === undefined) return offer.error ? <Problem text={offer.error} /> : <Loading what="the offer" />;
  const current = offer.value;
  const open = current.status === 'open' || current.status === 'ended';
  const applied = current.recipients.filter((recipient) => recipient.response === 'applied');

  const complete = () =>
    void act.run(async () => {
      await api(`${OFFERS}/${current.id}/complete`, { method: 'POST', body: [...chosen] });
      await offer.reload();
      return `Completed with ${chosen.size} ${chosen.size === 1 ? 'worker' : 'workers'}; everyone who applied has been told.`;
    });
  const withdraw = () =>
    void act.run(async () => {
      await api(`${OFFERS}/${current.id}/withdraw`, { method: 'POST' });
      await offer.reload();
      return 'Withdrawn; the recipients have been told.';
    });

  return (
    <Page title={current.title}>
      <p>
        <Badge tone={open ? 'wait' : 'plain'}>{current.status}</Badge> Sent <When at={current.createdAt} />
      </p>
      {current.details && <p dir="auto">{current.details}</p>}
      <TimeSlots slots={current.events} />
      <Problem text={offer.error} />
      <section aria-labelledby="recipients-heading" className="stack">
        <h2 id="recipients-heading">Recipients</h2>
        <p className="muted" aria-live="polite">
          {applied.length} applied of {current.recipients.length}
        </p>
        <ul className="recipients">
          {current.recipients.map((recipient) => (
            <li key={recipient.id} data-worker={recipient.workerId}>
              {open && recipient.response === 'applied' ? (
                <label className="check">
                  <input
                    type="checkbox"
                    checked={chosen.has(recipient.workerId)}
                    onChange={(event) => {
                      const next = new Set(chosen);
                      if (event.target.checked) next.add(recipient.workerId);
                      else next.delete(recipient.workerId);
                      setChosen(next);
                    }}
                  />
                  {recipient.name ?? recipient.workerId}
                </label>
              ) : (
                <span>{recipient.name ?? recipient.workerId}</span>
              )}{' '}
              <Badge tone={RESPONSE_TONE[recipient.response]}>{recipient.response}</Badge>
              {recipient.respondedAt && (
                <span className="muted">
                  <When at={recipient.respondedAt} />
                </span>
              )}
              {recipient.confirmation && <Badge tone="plain">{recipient.confirmation}</Badge>}
            </li>
          ))}
        </ul>
      </section>
      {open && (
        <div className="actions">
          <button type="button" disabled={act.busy || chosen.size === 0} aria-describedby="complete-hint" onClick={complete}>
            Complete with {chosen.size} chosen
          </button>
          <ConfirmButton
            label="Withdraw offer"
            question="Withdraw this offer?"
            consequence="Every recipient is told it is off; a withdrawn offer cannot be sent again or completed."
            yes="Yes, withdraw"
            disabled={act.busy}
            onConfirm={withdraw}
          />
          <p id="complete-hint" className="muted">
            To complete, choose at least one worker who applied.
          </p>
        </div>
      )}
      <Problem text={act.error} />
      <Done text={act.done} />
    </Page>
  );
}
