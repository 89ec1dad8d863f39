import { type FormEvent, useState } from 'react';
import { api, ApiProblem } from '../api';
import { ConfirmButton, Done, Loading, Page, Problem, When } from '../components';
import { useAction, useLoad } from '../hooks';
import { useSession } from '../session';

type Scheme = 'hmac' | 'v1' | 'v1a';

interface CompanyProfile {
  organisationId: string;
  baseUrl: string | null;
  secretSet: boolean;
  signatureSchemes: Scheme[];
  suggestionsEnabled: boolean;
  /** Whether the organisation may offer suggestions at all (integrators and operator-approved ones). */
  suggestionsAllowed: boolean;
  savedAt: string | null;
  rotation: { previousSecretActive: boolean; previousSecretExpiresAt?: string | null };
  /** What to fix when the last check found /test/auth accepting forged or stale calls; null once a check passes. */
  verificationWarning?: string | null;
}

const SCHEMES: Array<{ value: Scheme; label: string }> = [
  { value: 'hmac', label: 'hmac: the spec’s X-Signature (HMAC-SHA256)' },
  { value: 'v1', label: 'v1: Standard Webhooks, shared secret' },
  { value: 'v1a', label: 'v1a: Standard Webhooks, the platform’s public key (ed25519)' },
];

const PROFILE = '/api/directory/portal/company-profile';
/** contact-directory's secret limits (MIN_SECRET_LENGTH, MAX_SECRET_LENGTH): the form takes what the API takes. */
const SECRET_LENGTH = { min: 16, max: 256 };
const MAX_BASE_URL_LENGTH = 2000;

/** Not saved yet: a 404, shown as an empty form. */
async function loadProfile(): Promise<CompanyProfile | null> {
  try {
    return await api<CompanyProfile>(PROFILE);
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 404) return null;
    throw error;
  }
}

export function CompanyProfilePage() {
  const { person } = useSession();
  const profile = useLoad(loadProfile);
  // Only admins change the profile (the API refuses members): a member sees it, read-only.
  const admin = person?.role === 'admin';
  if (profile.value === undefined) return profile.error ? <Problem text={profile.error} /> : <Loading what="the company profile" />;
  return (
    <Page title="Company profile">
      {!admin && <p className="note">Only an admin of {person?.organisationName} can change the company profile: you see it read-only.</p>}
      <WebhookForm profile={profile.value} admin={admin} onSaved={(saved) => profile.setValue(saved)} onRemoved={() => profile.reload()} />
      {profile.value?.suggestionsAllowed && <Suggestions profile={profile.value} admin={admin} onSaved={(saved) => profile.setValue(saved)} />}
    </Page>
  );
}

function SavedState({ profile }: { profile: CompanyProfile | null }) {
  if (!profile?.savedAt) return <p className="muted">Not saved yet.</p>;
  return (
    <>
      {profile.verificationWarning ? (
        <p className="problem" role="alert">
          {profile.verificationWarning}
        </p>
      ) : null}
      <p className="muted">
        Saved <When at={profile.savedAt} />.{' '}
        {profile.rotation.previousSecretActive ? (
          <>
            The previous secret still signs until <When at={profile.rotation.previousSecretExpiresAt} />.
          </>
        ) : (
          'No previous secret is in use.'
        )}
      </p>
    </>
  );
}

function WebhookForm({
  profile,
  admin,
  onSaved,
  onRemoved,
}: {
  profile: CompanyProfile | null;
  admin: boolean;
  onSaved: (profile: CompanyProfile) => void;
  onRemoved: () => Promise<unknown>;
}) {
  const [baseUrl, setBaseUrl] = useState(profile?.baseUrl ?? '');
  const [secret, setSecret] = useState('');
  const [schemes, setSchemes] = useState<Scheme[]>(profile?.signatureSchemes ?? ['hmac']);
  const save = useAction();
  const saved = !!profile?.savedAt;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run(async () => {
      const answer = await api<CompanyProfile>(`${PROFILE}/webhook`, { method: 'PUT', body: { baseUrl, secret, signatureSchemes: schemes } });
      onSaved(answer);
      setSecret('');
      return 'Saved: your service answered GET /test and GET /test/auth.';
    });
  };
  const remove = () =>
    void save.run(async () => {
      await api(`${PROFILE}/webhook`, { method: 'DELETE' });
      await onRemoved();
      return 'Removed: the platform no longer calls your service.';
    });
  const toggle = (scheme: Scheme, on: boolean) => setSchemes((current) => (on ? [...current, scheme] : current.filter((value) => value !== scheme)));

  return (
    <form onSubmit={submit} className="stack card" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Your service</h2>
      <p className="muted">
        The platform calls your service at this address, signed with the secret. It is saved only when your service answers <code>GET /test</code> and{' '}
        <code>GET /test/auth</code>.
      </p>
      <fieldset className="plain" disabled={!admin}>
        <legend className="visually-hidden">Address and secret</legend>
        <div className="stack">
          <label htmlFor="base-url">Base service address</label>
          <input id="base-url" type="url" required maxLength={MAX_BASE_URL_LENGTH} placeholder="https://hooks.example.com" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} />
          {admin && (
            <>
              <label htmlFor="secret">{profile?.secretSet ? 'New secret (the current one keeps signing during the grace period)' : 'Secret'}</label>
              <input
                id="secret"
                type="password"
                required
                autoComplete="new-password"
                minLength={SECRET_LENGTH.min}
                maxLength={SECRET_LENGTH.max}
                pattern="[\x21-\x7e]+"
                aria-describedby="secret-hint"
                value={secret}
                onChange={(event) => setSecret(event.target.value)}
              />
              <p id="secret-hint" className="muted">
                {SECRET_LENGTH.min} to {SECRET_LENGTH.max} characters: letters, digits and punctuation, no spaces.
              </p>
            </>
          )}
          <fieldset>
            <legend>Signatures</legend>
            {SCHEMES.map((scheme) => (
              <label key={scheme.value} className="check">
                <input type="checkbox" checked={schemes.includes(scheme.value)} onChange={(event) => toggle(scheme.value, event.target.checked)} />
                {scheme.label}
              </label>
            ))}
          </fieldset>
        </div>
      </fieldset>
      <SavedState profile={profile} />
      {admin && (
        <div className="actions">
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Checking your service…' : 'Check and save'}
          </button>
          {saved && (
            <ConfirmButton
              label="Remove"
              question="Remove your service?"
              consequence="The platform stops calling it (webhooks and contact suggestions); setting it up again needs a secret."
              yes="Yes, remove"
              disabled={save.busy}
              onConfirm={remove}
            />
          )}
        </div>
      )}
      <Problem text={save.error} />
      <Done text={save.done} />
    </form>
  );
}

function Suggestions({ profile, admin, onSaved }: { profile: CompanyProfile; admin: boolean; onSaved: (profile: CompanyProfile) => void }) {
  const save = useAction();
  const toggle = (enabled: boolean) =>
    void save.run(async () => {
      onSaved(await api<CompanyProfile>(`${PROFILE}/suggestions`, { method: 'PUT', body: { enabled } }));
      return enabled ? 'Contact suggestions are on.' : 'Contact suggestions are off.';
    });
  return (
    <section className="card stack" aria-labelledby="suggestions-heading">
      <h2 id="suggestions-heading">Contact suggestions</h2>
      <p className="muted">As a suggestion provider, your service receives hirers’ searches and answers with contacts they may invite.</p>
      <label className="check">
        <input type="checkbox" checked={profile.suggestionsEnabled} disabled={!admin || save.busy || !profile.savedAt} onChange={(event) => toggle(event.target.checked)} />
        Offer contact suggestions to hirers
      </label>
      {!profile.savedAt && <p className="muted">Save your service first: suggestion searches are sent to it.</p>}
      <Problem text={save.error} />
      <Done text={save.done} />
    </section>
  );
}
