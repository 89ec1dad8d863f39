import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Badge, Done, Loading, Notice, Page, Problem } from '../components';
import { useAction, useLoad } from '../hooks';
import { useSession } from '../session';

interface Provider {
  organisationId: string;
  name: string;
  enabled: boolean;
}

interface Rating {
  rating: number;
  ratingProvider: string;
  lastWorked: string;
}

interface Suggestion {
  name: string;
  emailAddress: string;
  /** The platform's copy of the provider's image (a path of the directory API); never the provider's own URL. */
  profileImagePath?: string;
  organisationId: string;
  ratings: Rating[];
}

interface ProviderOutcome {
  organisationId: string;
  name: string;
  status: 'ok' | 'timeout' | 'error' | 'invalid';
  error?: string;
  returned: number;
  dropped: number;
  durationMs: number;
}

interface SearchResult {
  suggestions: Suggestion[];
  providers: ProviderOutcome[];
}

const DIRECTORY = '/api/directory/portal';

interface Invitation {
  name: string;
  emailAddress: string;
  suggestedByOrganisationId?: string;
}

/** What became of each address: invited now, or invited before (nothing sent again). */
type Invited = Map<string, 'invited' | 'already-invited'>;

/** What an invitation request did, in words: a success only when something was sent. */
interface InviteOutcome {
  text: string;
  sent: boolean;
  invited: Invited;
}

async function sendInvitations(invitations: Invitation[]): Promise<InviteOutcome> {
  const answer = await api<{ invitations: Array<{ emailAddress: string; created: boolean }> }>(`${DIRECTORY}/invitations`, { method: 'POST', body: { invitations } });
  const created = answer.invitations.filter((invitation) => invitation.created).length;
  const already = answer.invitations.length - created;
  const invited: Invited = new Map(answer.invitations.map((invitation) => [invitation.emailAddress.toLowerCase(), invitation.created ? 'invited' : 'already-invited']));
  return { text: `${created} ${created === 1 ? 'invitation' : 'invitations'} sent${already > 0 ? `; ${already} already invited` : ''}.`, sent: created > 0, invited };
}

/** An invitation request's outcome: success styling only when an invitation went out. */
function InviteOutcomeText({ outcome }: { outcome?: InviteOutcome }) {
  if (!outcome) return null;
  return outcome.sent ? <Done text={outcome.text} /> : <Notice text={outcome.text} />;
}

export function InvitesPage() {
  const { person } = useSession();
  // Invitations are e-mail in the organisation's name: only its admins send them (members may search).
  const mayInvite = person?.role === 'admin';
  const providers = useLoad(() => api<{ providers: Provider[] }>(`${DIRECTORY}/suggestion-providers`));
  const [chosen, setChosen] = useState<Set<string> | undefined>(undefined);
  const [filter, setFilter] = useState('');
  const [result, setResult] = useState<SearchResult | undefined>(undefined);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const search = useAction();
  const invite = useAction();
  const [outcome, setOutcome] = useState<InviteOutcome | undefined>(undefined);
  const [invited, setInvited] = useState<Invited>(new Map());

  const enabled = providers.value?.providers.filter((provider) => provider.enabled) ?? [];
  const chosenIds = chosen ?? new Set(enabled.map((provider) => provider.organisationId));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void search.run(async () => {
      const found = await api<SearchResult>(`${DIRECTORY}/contact-suggestions/search`, { method: 'POST', body: { filter: filter || undefined, organisationIds: [...chosenIds] } });
      setResult(found);
      setSelected(new Set());
      setOutcome(undefined);
      return `${found.suggestions.length} ${found.suggestions.length === 1 ? 'contact' : 'contacts'} found.`;
    });
  };

  const sendInvites = () => {
    setOutcome(undefined);
    void invite.run(async () => {
      const invitations = (result?.suggestions ?? [])
        .filter((suggestion) => selected.has(suggestion.emailAddress))
        .map((suggestion) => ({ name: suggestion.name, emailAddress: suggestion.emailAddress, suggestedByOrganisationId: suggestion.organisationId }));
      const sent = await sendInvitations(invitations);
      setOutcome(sent);
      setInvited(new Map([...invited, ...sent.invited]));
      setSelected(new Set());
    });
  };

  const toggle = (set: Set<string>, value: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return next;
  };

  return (
    <Page title="Invites">
      <form className="card stack" onSubmit={submit} aria-labelledby="search-heading">
        <h2 id="search-heading">Find people to invite</h2>
        {providers.value === undefined ? (
          providers.error ? <Problem text={providers.error} /> : <Loading what="providers" />
        ) : (
          <fieldset>
            <legend>Search these providers</legend>
            {providers.value.providers.length === 0 && <p className="muted">No suggestion providers are available to your organisation.</p>}
            {providers.value.providers.map((provider) => (
              <label key={provider.organisationId} className="check">
                <input type="checkbox" checked={chosenIds.has(provider.organisationId)} onChange={(event) => setChosen(toggle(chosenIds, provider.organisationId, event.target.checked))} />
                <bdi>{provider.name}</bdi>
              </label>
            ))}
          </fieldset>
        )}
        <label htmlFor="filter">Name or e-mail contains</label>
        <input id="filter" type="search" maxLength={200} value={filter} onChange={(event) => setFilter(event.target.value)} />
        <button type="submit" disabled={search.busy || chosenIds.size === 0}>
          {search.busy ? 'Searching…' : 'Search'}
        </button>
        <Problem text={search.error} />
        <Done text={search.done} />
      </form>
      {result && (
        <section className="stack" aria-labelledby="results-heading">
          <h2 id="results-heading">Results</h2>
          <ul className="providers" aria-label="Providers searched">
            {result.providers.map((provider) => (
              <li key={provider.organisationId}>
                <bdi>{provider.name}</bdi>: <Badge tone={provider.status === 'ok' ? 'good' : 'bad'}>{provider.status}</Badge> {provider.returned} returned
                {provider.error && <span className="problem-inline"> — {provider.error}</span>}
              </li>
            ))}
          </ul>
          <ul className="people">
            {result.suggestions.map((suggestion) => (
              <li key={suggestion.emailAddress} className="person card">
                <label className="check">
                  <input type="checkbox" checked={selected.has(suggestion.emailAddress)} onChange={(event) => setSelected(toggle(selected, suggestion.emailAddress, event.target.checked))} />
                  <span className="visually-hidden">Select {suggestion.name}</span>
                </label>
                <Avatar name={suggestion.name} path={suggestion.profileImagePath} />
                <div>
                  <p className="name">
                    <bdi>{suggestion.name}</bdi> <InvitedBadge state={invited.get(suggestion.emailAddress.toLowerCase())} />
                  </p>
                  <p className="muted">{suggestion.emailAddress}</p>
                  <ul className="ratings">
                    {suggestion.ratings.map((rating) => (
                      <li key={`${rating.ratingProvider}-${rating.lastWorked}`}>
                        {'★'.repeat(rating.rating)}
                        <span className="visually-hidden">{rating.rating} of 5</span> from {rating.ratingProvider}, last worked {rating.lastWorked.slice(0, 10)}
                      </li>
                    ))}
                  </ul>
                </div>
              </li>
            ))}
          </ul>
          {!mayInvite && (
            <p className="note" id="invite-note">
              Only an admin of {person?.organisationName} can send invitations.
            </p>
          )}
          <button type="button" disabled={!mayInvite || invite.busy || selected.size === 0} aria-describedby={mayInvite ? undefined : 'invite-note'} onClick={sendInvites}>
            Invite {selected.size || ''} selected
          </button>
          <Problem text={invite.error} />
          <InviteOutcomeText outcome={outcome} />
        </section>
      )}
      {mayInvite && <InviteByAddress />}
    </Page>
  );
}

/** The suggested person's picture from the platform, or their initial when there is none or it fails to load. */
function Avatar({ name, path }: { name: string; path?: string }) {
  const [failed, setFailed] = useState(false);
  // Only the directory's own image path: anything else would be a URL the page has no business loading.
  if (path === undefined || !path.startsWith('/portal/') || failed) {
    return (
      <span className="avatar" aria-hidden="true">
        {name.slice(0, 1)}
      </span>
    );
  }
  return <img src={`/api/directory${path}`} alt="" width={48} height={48} onError={() => setFailed(true)} />;
}

function InvitedBadge({ state }: { state?: 'invited' | 'already-invited' }) {
  if (!state) return null;
  return state === 'invited' ? <Badge tone="good">Invited</Badge> : <Badge tone="wait">Already invited</Badge>;
}

/** Someone the hirer knows already, by name and address, without searching a provider. */
function InviteByAddress() {
  const [name, setName] = useState('');
  const [emailAddress, setEmailAddress] = useState('');
  const [outcome, setOutcome] = useState<InviteOutcome | undefined>(undefined);
  const invite = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setOutcome(undefined);
    void invite.run(async () => setOutcome(await sendInvitations([{ name, emailAddress }])));
  };
  return (
    <form className="card stack narrow" onSubmit={submit} aria-labelledby="invite-address-heading">
      <h2 id="invite-address-heading">Invite someone by e-mail</h2>
      <label htmlFor="invite-name">Name</label>
      <input id="invite-name" required maxLength={100} autoComplete="off" aria-describedby="invite-name-hint" value={name} onChange={(event) => setName(event.target.value)} />
      <p id="invite-name-hint" className="muted">
        A person’s name, up to 100 characters: letters, spaces and <code>{"' - , ."}</code>
      </p>
      <label htmlFor="invite-email">E-mail address</label>
      <input id="invite-email" type="email" required maxLength={320} autoComplete="off" value={emailAddress} onChange={(event) => setEmailAddress(event.target.value)} />
      <button type="submit" disabled={invite.busy}>
        Invite
      </button>
      <Problem text={invite.error} />
      <InviteOutcomeText outcome={outcome} />
    </form>
  );
}
