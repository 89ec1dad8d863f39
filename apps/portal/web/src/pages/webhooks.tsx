import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Badge, ConfirmButton, ConfirmQuestion, Done, Loading, localDateTime, Page, Pager, Problem, When } from '../components';
import { useAction, useCursorPages, useLoad } from '../hooks';
import { useSession } from '../session';

type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead' | 'skipped' | 'superseded';
type EventType = 'offer-response' | 'contact-added';

interface Attempt {
  attemptNo: number;
  startedAt: string;
  statusCode?: number;
  durationMs?: number;
  errorKind?: string;
  errorMessage?: string;
  responseExcerpt?: string;
}

interface Delivery {
  id: number;
  eventId: string;
  eventType: EventType;
  webhookId: string;
  method: string;
  path: string;
  offerId: string | null;
  workerId: string | null;
  status: DeliveryStatus;
  attempts: number;
  test: boolean;
  createdAt: string;
  lastStatusCode?: number;
  lastError?: string;
  attemptLog?: Attempt[];
  request?: SentRequest;
}

interface SentRequest {
  method: string;
  url: string | null;
  headers: Record<string, string>;
  perAttemptHeaders: string[];
  body: string;
}

interface Endpoint {
  state: 'healthy' | 'failing' | 'circuit-open' | 'disabled';
  baseUrl: string | null;
  circuitOpen: boolean;
  heldCount: number;
  disabled: boolean;
  disabledReason?: string;
  lastFailureAt: string | null;
  lastFailureError: string | null;
  lastSuccessAt: string | null;
}

const BASE = '/api/webhooks/portal/webhooks';
/** How far back "redeliver failed since" reaches (webhook-dispatcher's REDELIVERY_WINDOW_DAYS). */
const REDELIVERY_WINDOW_DAYS = 30;
const STATUS_TONE: Record<DeliveryStatus, 'good' | 'bad' | 'wait' | 'plain'> = { succeeded: 'good', failed: 'bad', dead: 'bad', pending: 'wait', skipped: 'plain', superseded: 'plain' };
/** What a status means, where its name alone does not say. */
const STATUS_TITLE: Partial<Record<DeliveryStatus, string>> = { superseded: 'Not sent: a newer answer from this worker replaced it' };

/** What the log can be searched by: the API's filter of each. */
const SEARCH_BY = { offerId: 'Offer id', workerId: 'Worker id', eventId: 'Event id', webhookId: 'Webhook id' } as const;
type SearchBy = keyof typeof SEARCH_BY;

export function WebhooksPage() {
  const [filter, setFilterState] = useState({ status: '', eventType: '', from: '', search: '', searchBy: 'offerId' as SearchBy });
  const pages = useCursorPages();
  const setFilter = (next: typeof filter) => {
    setFilterState(next);
    pages.reset();
  };
  const { search, searchBy, ...choices } = filter;
  const query = new URLSearchParams(Object.entries(choices).filter(([, value]) => value !== '').map(([key, value]) => [key, key === 'from' ? new Date(value).toISOString() : value]));
  if (search !== '') query.set(searchBy, search);
  if (pages.before) query.set('before', pages.before);
  const deliveries = useLoad(() => api<{ items: Delivery[]; nextCursor: string | null }>(`${BASE}/deliveries?${query}`), [query.toString()], 3_000);
  const endpoint = useLoad(() => api<Endpoint>(`${BASE}/endpoint`), [], 3_000);
  const reload = () => Promise.all([deliveries.reload(), endpoint.reload()]);

  return (
    <Page title="Webhooks">
      <EndpointState endpoint={endpoint.value} error={endpoint.error} onChange={reload} />
      <div className="grid-2">
        <TestEvent onSent={reload} />
        <RedeliverSince onDone={reload} />
      </div>
      <section aria-labelledby="deliveries-heading" className="stack">
        <h2 id="deliveries-heading">Deliveries</h2>
        <form className="filters" aria-label="Filter deliveries" onSubmit={(event) => event.preventDefault()}>
          <label>
            Status
            <select value={filter.status} onChange={(event) => setFilter({ ...filter, status: event.target.value })}>
              <option value="">Any</option>
              {Object.keys(STATUS_TONE).map((status) => (
                <option key={status}>{status}</option>
              ))}
            </select>
          </label>
          <label>
            Event type
            <select value={filter.eventType} onChange={(event) => setFilter({ ...filter, eventType: event.target.value })}>
              <option value="">Any</option>
              <option>offer-response</option>
              <option>contact-added</option>
            </select>
          </label>
          <label>
            Since
            <input type="datetime-local" max={localDateTime(Date.now())} value={filter.from} onChange={(event) => setFilter({ ...filter, from: event.target.value })} />
          </label>
        </form>
        <SearchDeliveries onSearch={(by, text) => setFilter({ ...filter, searchBy: by, search: text })} />
        <Problem text={deliveries.error} />
        {deliveries.value === undefined ? <Loading what="deliveries" /> : <DeliveryTable items={deliveries.value.items} onRedelivered={reload} />}
        <Pager pages={pages} nextCursor={deliveries.value?.nextCursor} label="Pages of deliveries" />
      </section>
    </Page>
  );
}

function EndpointState({ endpoint, error, onChange }: { endpoint?: Endpoint; error?: string; onChange: () => Promise<unknown> }) {
  const { person } = useSession();
  const enable = useAction();
  if (!endpoint) return error ? <Problem text={error} /> : <Loading what="the endpoint" />;
  const tone = endpoint.state === 'healthy' ? 'good' : endpoint.state === 'failing' ? 'wait' : 'bad';
  return (
    <section className="card" aria-labelledby="endpoint-heading">
      <h2 id="endpoint-heading">
        Your endpoint <Badge tone={tone}>{endpoint.state}</Badge>
      </h2>
      <dl className="facts">
        <dt>Address</dt>
        <dd>{endpoint.baseUrl ?? 'not set up'}</dd>
        <dt>Circuit</dt>
        <dd>{endpoint.circuitOpen ? 'open: calls paused after repeated failures' : 'closed'}</dd>
        <dt>Held deliveries</dt>
        <dd>{endpoint.heldCount}</dd>
        <dt>Last success</dt>
        <dd>
          <When at={endpoint.lastSuccessAt} />
        </dd>
        {endpoint.lastFailureError && (
          <>
            <dt>Last failure</dt>
            <dd>
              <When at={endpoint.lastFailureAt} /> · {endpoint.lastFailureError}
            </dd>
          </>
        )}
      </dl>
      {endpoint.disabled && (
        <div className="stack">
          <p>Disabled: {endpoint.disabledReason ?? 'after failing for too long'}.</p>
          {person?.role === 'admin' && (
            <button type="button" disabled={enable.busy} onClick={() => void enable.run(async () => void (await api(`${BASE}/endpoint/enable`, { method: 'POST' }), await onChange()))}>
              Re-enable the endpoint
            </button>
          )}
          <Problem text={enable.error} />
        </div>
      )}
    </section>
  );
}

function TestEvent({ onSent }: { onSent: () => Promise<unknown> }) {
  const [type, setType] = useState<EventType>('offer-response');
  const send = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send.run(async () => {
      const delivery = await api<Delivery>(`${BASE}/test-events`, { method: 'POST', body: { type } });
      await onSent();
      return `Test ${type} sent as delivery ${delivery.id}, signed like a real one and marked as a test.`;
    });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="test-heading">
      <h2 id="test-heading">Send a test event</h2>
      <label htmlFor="test-type">Type of test event</label>
      <select id="test-type" value={type} onChange={(event) => setType(event.target.value as EventType)}>
        <option value="offer-response">offer-response</option>
        <option value="contact-added">contact-added</option>
      </select>
      <button type="submit" disabled={send.busy}>
        Send test event
      </button>
      <Problem text={send.error} />
      <Done text={send.done} />
    </form>
  );
}

/** Search by one id; applied when submitted, so a half-typed id is not sent. */
function SearchDeliveries({ onSearch }: { onSearch: (by: SearchBy, text: string) => void }) {
  const [by, setBy] = useState<SearchBy>('offerId');
  const [text, setText] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(by, text.trim());
  };
  return (
    <form className="filters" role="search" aria-label="Search deliveries" onSubmit={submit}>
      <label>
        Search by
        <select value={by} onChange={(event) => setBy(event.target.value as SearchBy)}>
          {Object.entries(SEARCH_BY).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        {SEARCH_BY[by]}
        <input type="search" value={text} spellCheck={false} onChange={(event) => setText(event.target.value)} />
      </label>
      <button type="submit" className="secondary">
        Search
      </button>
    </form>
  );
}

interface RedeliverablePreview {
  deliveries: number;
  capped: boolean;
}

/** Redelivery by time: first how many it would send again, then, once confirmed, sends them. */
function RedeliverSince({ onDone }: { onDone: () => Promise<unknown> }) {
  const [since, setSince] = useState('');
  const [preview, setPreview] = useState<(RedeliverablePreview & { since: string }) | undefined>(undefined);
  const now = Date.now();
  const redeliver = useAction();
  const ask = (event: FormEvent) => {
    event.preventDefault();
    setPreview(undefined);
    void redeliver.run(async () => {
      const iso = new Date(since).toISOString();
      const found = await api<RedeliverablePreview>(`${BASE}/deliveries/redeliverable?since=${encodeURIComponent(iso)}`);
      if (found.deliveries === 0) return 'No failed deliveries since then: nothing to send again.';
      setPreview({ ...found, since: iso });
    });
  };
  const confirm = (iso: string) => {
    setPreview(undefined);
    void redeliver.run(async () => {
      const { redelivered } = await api<{ redelivered: number }>(`${BASE}/deliveries/redeliver`, { method: 'POST', body: { since: iso } });
      await onDone();
      return `${redelivered} failed ${redelivered === 1 ? 'delivery is' : 'deliveries are'} being sent again.`;
    });
  };
  const count = preview && `${preview.capped ? 'At least ' : ''}${preview.deliveries.toLocaleString()}`;
  return (
    <form className="card stack" onSubmit={ask} aria-labelledby="redeliver-heading">
      <h2 id="redeliver-heading">Redeliver failed deliveries</h2>
      <label htmlFor="redeliver-since">Failed since</label>
      <input
        id="redeliver-since"
        type="datetime-local"
        required
        min={localDateTime(now - REDELIVERY_WINDOW_DAYS * 86_400_000)}
        max={localDateTime(now)}
        aria-describedby="redeliver-since-hint"
        value={since}
        onChange={(event) => {
          setSince(event.target.value);
          setPreview(undefined);
        }}
      />
      <p id="redeliver-since-hint" className="muted">
        A time in the last {REDELIVERY_WINDOW_DAYS} days. You are told how many deliveries that is before anything is sent.
      </p>
      {preview ? (
        <ConfirmQuestion
          question={`Redeliver ${count} failed ${preview.deliveries === 1 ? 'delivery' : 'deliveries'}?`}
          consequence="Each is sent to your endpoint again under the webhook-id it had, so a service that de-duplicates on it applies none twice."
          yes={`Yes, redeliver ${count}`}
          disabled={redeliver.busy}
          onYes={() => confirm(preview.since)}
          onCancel={() => setPreview(undefined)}
        />
      ) : (
        <button type="submit" disabled={redeliver.busy}>
          Redeliver failed since
        </button>
      )}
      <Problem text={redeliver.error} />
      <Done text={redeliver.done} />
    </form>
  );
}

function DeliveryTable({ items, onRedelivered }: { items: Delivery[]; onRedelivered: () => Promise<unknown> }) {
  const [open, setOpen] = useState<number | undefined>(undefined);
  if (items.length === 0) return <p className="muted">No deliveries match.</p>;
  return (
    <div className="table-scroll">
      <table className="cards-on-phone">
        <caption className="visually-hidden">Webhook deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">About</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} open={open === delivery.id} onToggle={() => setOpen(open === delivery.id ? undefined : delivery.id)} onRedelivered={onRedelivered} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeliveryRow({ delivery, open, onToggle, onRedelivered }: { delivery: Delivery; open: boolean; onToggle: () => void; onRedelivered: () => Promise<unknown> }) {
  const redeliver = useAction();
  const detail = useLoad(() => (open ? api<Delivery>(`${BASE}/deliveries/${delivery.id}`) : Promise.resolve(undefined)), [open]);
  // One list of attempts for both the column and the details, so the two always agree.
  const attempts = delivery.attemptLog ?? [];
  return (
    <>
      <tr data-delivery={delivery.id}>
        <td data-label="Created">
          <When at={delivery.createdAt} />
        </td>
        <td data-label="Event">
          {delivery.eventType} {delivery.test && <Badge tone="plain">test</Badge>}
          <br />
          <code className="muted">{delivery.webhookId}</code>
        </td>
        <td data-label="About">
          <Subjects delivery={delivery} />
        </td>
        <td data-label="Status">
          <Badge tone={STATUS_TONE[delivery.status]} title={STATUS_TITLE[delivery.status]}>
            {delivery.status}
          </Badge>
        </td>
        <td data-label="Attempts">{attempts.length}</td>
        <td data-label="Last answer">{delivery.lastStatusCode ?? delivery.lastError ?? '—'}</td>
        <td className="actions">
          <button type="button" className="secondary" aria-expanded={open} aria-label={`Details of delivery ${delivery.id}`} onClick={onToggle}>
            Details
          </button>
          {delivery.status !== 'pending' && delivery.status !== 'skipped' && (
            <ConfirmButton
              label="Redeliver"
              question={`Redeliver delivery ${delivery.id}?`}
              consequence="Your service is called again with the same webhook-id, even if it handled this one."
              yes="Yes, redeliver"
              tone="secondary"
              disabled={redeliver.busy}
              onConfirm={() =>
                void redeliver.run(async () => {
                  await api(`${BASE}/deliveries/${delivery.id}/redeliver`, { method: 'POST' });
                  await onRedelivered();
                  return `Delivery ${delivery.id} is being sent again.`;
                })
              }
            />
          )}
          <Problem text={redeliver.error} />
          <Done text={redeliver.done} />
        </td>
      </tr>
      {open && (
        <tr className="detail">
          <td colSpan={7}>
            <div className="stack">
              {detail.value?.request ? <RequestAsSigned request={detail.value.request} /> : detail.error ? <Problem text={detail.error} /> : <Loading what="the request" />}
              <h3>Attempts</h3>
              <AttemptLog attempts={attempts} />
            </div>
          </td>
        </tr>
      )}
    </>
  );
}

function Subjects({ delivery }: { delivery: Delivery }) {
  if (!delivery.offerId && !delivery.workerId) return <span className="muted">—</span>;
  return (
    <dl className="subjects">
      {delivery.offerId && (
        <>
          <dt>Offer</dt>
          <dd className="id">{delivery.offerId}</dd>
        </>
      )}
      {delivery.workerId && (
        <>
          <dt>Worker</dt>
          <dd className="id">{delivery.workerId}</dd>
        </>
      )}
    </dl>
  );
}

/** The body as sent, indented when it is JSON (the bytes signed are the compact ones). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function RequestAsSigned({ request }: { request: SentRequest }) {
  const head = [`${request.method} ${request.url ?? '(no base URL: not sent)'}`, ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`)].join('\n');
  return (
    <section className="stack" aria-label="The request as signed">
      <h3>Request</h3>
      <pre className="request" tabIndex={0}>{head}</pre>
      <p className="muted">
        Each attempt signs the request anew, at its own time: {request.perAttemptHeaders.map((name, index) => (
          <span key={name}>
            {index > 0 && ', '}
            <code>{name}</code>
          </span>
        ))}{' '}
        (those of your signature schemes) differ per attempt and are not kept.
      </p>
      <h3>Body</h3>
      {request.body === '' ? <p className="muted">No body ({request.method}).</p> : <pre className="request" tabIndex={0}>{pretty(request.body)}</pre>}
    </section>
  );
}

function AttemptLog({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return <p className="muted">No attempt yet.</p>;
  return (
    <ol className="attempts">
      {attempts.map((attempt) => (
        <li key={`${attempt.attemptNo}-${attempt.startedAt}`}>
          <When at={attempt.startedAt} /> · {attempt.statusCode ? `HTTP ${attempt.statusCode}` : (attempt.errorKind ?? 'no answer')}
          {attempt.durationMs !== undefined && ` · ${attempt.durationMs} ms`}
          {attempt.errorMessage && ` · ${attempt.errorMessage}`}
          {attempt.responseExcerpt && <pre>{attempt.responseExcerpt}</pre>}
        </li>
      ))}
    </ol>
  );
}
