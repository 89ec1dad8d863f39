import { useState } from 'react';
import { api } from '../api';
import { Badge, Loading, Page, Problem, When } from '../components';
import { useLoad } from '../hooks';

interface PublishedKey {
  kid: string;
  x: string;
  signs: boolean;
  notAfter: string | null;
}

interface SigningKeys {
  keySetUrl: string;
  keys: PublishedKey[];
}

/** The platform's v1a signing keys: where integrators fetch them, each key, and how to verify with them. */
export function SigningKeysPage() {
  const keys = useLoad(() => api<SigningKeys>('/api/webhooks/portal/webhooks/signing-keys'), []);
  return (
    <Page title="Signing keys">
      <p>
        With the <code>v1a</code> scheme the platform signs each call with its private key; your service verifies it with the public key the{' '}
        <code>webhook-key-id</code> header names, from the key set below. No secret is shared.
      </p>
      <Problem text={keys.error} />
      {keys.value === undefined ? (
        !keys.error && <Loading what="the signing keys" />
      ) : (
        <>
          <section className="card stack" aria-labelledby="key-set-heading">
            <h2 id="key-set-heading">Key set address</h2>
            <p className="muted">Public, no authentication; cache it for five minutes and fetch again when a call names a key id you do not have.</p>
            <Copyable label="key set address" text={keys.value.keySetUrl} />
          </section>
          <KeyTable keys={keys.value.keys} />
          <VerifySnippets keySet={keys.value} />
        </>
      )}
    </Page>
  );
}

function KeyTable({ keys }: { keys: PublishedKey[] }) {
  return (
    <section aria-labelledby="keys-heading" className="stack">
      <h2 id="keys-heading">Keys</h2>
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">Published signing keys</caption>
          <thead>
            <tr>
              <th scope="col">Key id</th>
              <th scope="col">Public key (x)</th>
              <th scope="col">Valid</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.kid} data-kid={key.kid}>
                <td>
                  <Copyable label={`key id ${key.kid}`} text={key.kid} />
                </td>
                <td>
                  <Copyable label={`public key of ${key.kid}`} text={key.x} />
                </td>
                <td>
                  {key.signs ? <Badge tone="good">signs now</Badge> : <Badge tone="plain">verifies earlier calls</Badge>}{' '}
                  {key.notAfter ? (
                    <>
                      published until <When at={key.notAfter} />
                    </>
                  ) : (
                    'no end set'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Short versions of the integrator guide's verifiers ("v1a: verifying without a shared secret"). */
function snippets({ keySetUrl, keys }: SigningKeys): Array<{ language: string; code: string }> {
  const javaKeys = keys.map((key) => `"${key.kid}", "${key.x}"`).join(', ');
  return [
    {
      language: 'Node',
      code: `import { RemoteKeySet } from '@availability/webhook-signing';

const platformKeys = new RemoteKeySet({ url: '${keySetUrl}' }); // one per process

// rawBody: the body's bytes as received
const result = await platformKeys.verify(req, rawBody);
if (!result.ok) return res.status(401).send(result.reason);`,
    },
    {
      language: 'Python',
      code: `KEY_SET_URL = "${keySetUrl}"

# verify_v1a from the integrator guide: fetches and caches the key set,
# picks the key webhook-key-id names, checks the time and the signature.
if not verify_v1a(request.headers, request.get_data()):
    abort(401)`,
    },
    {
      language: 'Java',
      code: `// kid -> x of each key at ${keySetUrl}
// (fetch it again when a call names a kid you do not have)
Map<String, String> keys = Map.of(${javaKeys});

boolean ok = WebhookVerifier.verifyV1a(keys, rawBody, headers, System.currentTimeMillis());
if (!ok) exchange.sendResponseHeaders(401, -1);`,
    },
  ];
}

function VerifySnippets({ keySet }: { keySet: SigningKeys }) {
  return (
    <section aria-labelledby="verify-heading" className="stack">
      <h2 id="verify-heading">Verify a call</h2>
      <p className="muted">
        The integrator guide has the whole functions (“v1a: verifying without a shared secret”). Verify the exact bytes received, before parsing them.
      </p>
      {snippets(keySet).map(({ language, code }) => (
        <div key={language} className="card stack">
          <h3>{language}</h3>
          <pre className="request" tabIndex={0}>{code}</pre>
          <CopyButton label={`${language} snippet`} text={code} />
        </div>
      ))}
    </section>
  );
}

function Copyable({ label, text }: { label: string; text: string }) {
  return (
    <span className="copyable">
      <code>{text}</code> <CopyButton label={label} text={text} />
    </span>
  );
}

/** Copies `text`; says so (or why not) where a screen reader hears it. */
function CopyButton({ label, text }: { label: string; text: string }) {
  const [said, setSaid] = useState('');
  const copy = () =>
    void navigator.clipboard.writeText(text).then(
      () => setSaid('Copied'),
      () => setSaid('Copying is not allowed here: select the text instead'),
    );
  return (
    <>
      <button type="button" className="secondary" aria-label={`Copy ${label}`} onClick={copy}>
        Copy
      </button>
      <span role="status" className="muted">
        {said}
      </span>
    </>
  );
}
