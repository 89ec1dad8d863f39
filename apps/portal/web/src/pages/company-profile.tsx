import { type FormEvent, useState } from 'react';
import { api, ApiProblem } from '../api';
import { Done, Loading, Page, Problem, When } from '../components';
import { useAction, useLoad } from '../hooks';
import { useSession } from '../session';

type Scheme = 'hmac' | 'v1' | 'v1a';

interface CompanyProfile {
  organisationId: string;
  baseUrl: string;
  secretSet: boolean;
  signatureSchemes: Scheme[];
  suggestionsEnabled: boolean;
  savedAt: string;
  rotation: { previousSecretActive: boolean; previousSecretExpiresAt?: string };
}

const SCHEMES: Array<{ value: Scheme; label: string }> = [
  { value: 'hmac', label: 'hmac: the spec’s X-Signature (HMAC-SHA256)' },
  { value: 'v1', label: 'v1: Standard Webhooks, shared secret' },
  { value: 'v1a', label: 'v1a: Standard Webhooks, the platform’s public key (ed25519)' },
];

const PROFILE = '/api/directory/portal/company-profile';

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
  if (profile.value === undefined) return profile.error ? <Problem text={profile.error} /> : <Loading what="the company profile" />;
  return (
    <Page title="Company profile">
      {person?.role !== 'admin' && <p className="note">Only an admin of {person?.organisationName} can change the company profile.</p>}
      <WebhookForm profile={profile.value} onSaved={(saved) => profile.setValue(saved)} />
      {profile.value && <Suggestions profile={profile.value} onSaved={(saved) => profile.setValue(saved)} />}
    </Page>
  );
}

function WebhookForm({ profile, onSaved }: { profile: CompanyProfile | null; onSaved: (profile: CompanyProfile) => void }) {
  const [baseUrl, setBaseUrl] = useState(profile?.baseUrl ?? '');
  const [secret, setSecret] = useState('');
  const [schemes, setSchemes] = useState<Scheme[]>(profile?.signatureSchemes ?? ['hmac']);
  const save = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run(async () => {
      const saved = await api<CompanyProfile>(`${PROFILE}/webhook`, { method: 'PUT', body: { baseUrl, secret, signatureSchemes: schemes } });
      onSaved(saved);
      setSecret('');
      return 'Saved: your service answered GET /test and GET /test/auth.';
    });
  };
  const toggle = (scheme: Scheme, on: boolean) => setSchemes((current) => (on ? [...current, scheme] : current.filter((value) => value !== scheme)));

  return (
    <form onSubmit={submit} className="stack card" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Your service</h2>
      <p className="muted">
        The platform calls your service at this address, signed with the secret. It is saved only when your service answers <code>GET /test</code> and{' '}
        <code>GET /test/auth</code>.
      </p>
      <label htmlFor="base-url">Base service address</label>
      <input id="base-url" type="url" required maxLength={2000} placeholder="https://hooks.example.com" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} />
      <label htmlFor="secret">{profile?.secretSet ? 'New secret (the current one keeps signing during the grace period)' : 'Secret'}</label>
      <input id="secret" type="password" required autoComplete="new-password" maxLength={200} value={secret} onChange={(event) => setSecret(event.target.value)} />
      <fieldset>
        <legend>Signatures</legend>
        {SCHEMES.map((scheme) => (
          <label key={scheme.value} className="check">
            <input type="checkbox" checked={schemes.includes(scheme.value)} onChange={(event) => toggle(scheme.value, event.target.checked)} />
            {scheme.label}
          </label>
        ))}
      </fieldset>
      {profile && (
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
      )}
      <button type="submit" disabled={save.busy}>
        {save.busy ? 'Checking your service…' : 'Check and save'}
      </button>
      <Problem text={save.error} />
      <Done text={save.done} />
    </form>
  );
}

function Suggestions({ profile, onSaved }: { profile: CompanyProfile; onSaved: (profile: CompanyProfile) => void }) {
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
        <input type="checkbox" checked={profile.suggestionsEnabled} disabled={save.busy} onChange={(event) => toggle(event.target.checked)} />
        Offer contact suggestions to hirers
      </label>
      <Problem text={save.error} />
      <Done text={save.done} />
    </section>
  );
}
