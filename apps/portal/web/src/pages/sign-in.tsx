import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, type SignedInPerson } from '../api';
import { Done, Page, Problem } from '../components';
import { useAction } from '../hooks';
import { useSession } from '../session';

/**
 * Sign-in by e-mailed link: the person asks for a link; the link brings them back here with the
 * code in the address's fragment (never sent to any server), which is exchanged for the session.
 */
export function SignInPage({ audience }: { audience: 'portal' | 'worker' }) {
  const navigate = useNavigate();
  const { signedIn } = useSession();
  const [email, setEmail] = useState('');
  const request = useAction();
  const redeem = useAction();
  const redeemed = useRef(false);
  const home = audience === 'worker' ? '/worker' : '/offers';

  useEffect(() => {
    const code = new URLSearchParams(window.location.hash.slice(1)).get('code');
    if (!code || redeemed.current) return;
    redeemed.current = true;
    // The code works once: take it out of the address and the history.
    window.history.replaceState(null, '', window.location.pathname);
    void redeem.run(async () => {
      const person = await api<SignedInPerson>('/session', { method: 'POST', body: { code } });
      signedIn(person);
      navigate(home, { replace: true });
    });
  }, [home, navigate, redeem, signedIn]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void request.run(async () => {
      await api('/session/links', { method: 'POST', body: { email, audience } });
      return `If ${email} has an account, a sign-in link is on its way. Open it on this device.`;
    });
  };

  return (
    <Page title={audience === 'worker' ? 'Sign in to your offers' : 'Sign in to the portal'}>
      <Problem text={redeem.error} />
      <form onSubmit={submit} className="stack narrow">
        <label htmlFor="email">E-mail address</label>
        <input id="email" name="email" type="email" autoComplete="email" required maxLength={320} value={email} onChange={(event) => setEmail(event.target.value)} />
        <button type="submit" disabled={request.busy}>
          E-mail me a sign-in link
        </button>
      </form>
      <Problem text={request.error} />
      <Done text={request.done} />
    </Page>
  );
}
