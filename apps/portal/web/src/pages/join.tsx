import { Link } from 'react-router';
import { Page } from '../components';
import { useSession } from '../session';

/**
 * Where an invitation e-mail's link leads (`/join?invite=…`). An invitation is accepted by the
 * inviting organisation adding the person as a worker with the invited address: the page says so,
 * and leads to the worker sign-in, which e-mails a link to that address.
 */
export function JoinPage() {
  const { person } = useSession();
  return (
    <Page title="You have been invited">
      <p>An organisation invited you to receive offers of work through the Availability Platform: shifts you answer with Apply or Reject, on your phone.</p>
      <h2>What happens next</h2>
      <ol className="steps">
        <li>The organisation that invited you adds you as one of its workers, with the e-mail address the invitation came to.</li>
        <li>You sign in to the worker app with that address: it e-mails you a sign-in link, and there is no password to remember.</li>
        <li>Offers it sends you appear in the app, and on this device too if you allow notifications.</li>
      </ol>
      <p className="muted">If signing in sends you no e-mail yet, the organisation has not added you so far: try again later, or ask them.</p>
      <p>
        {person?.kind === 'worker' ? <Link to="/worker">Go to your offers</Link> : <Link to="/worker/sign-in">Sign in to the worker app</Link>}
      </p>
    </Page>
  );
}
