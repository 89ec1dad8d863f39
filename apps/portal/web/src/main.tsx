import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { Loading } from './components';
import { Layout } from './layout';
import { CompanyProfilePage } from './pages/company-profile';
import { InvitesPage } from './pages/invites';
import { JoinPage } from './pages/join';
import { NotFoundPage } from './pages/not-found';
import { OfferPage, OffersPage } from './pages/offers';
import { SignInPage } from './pages/sign-in';
import { SigningKeysPage } from './pages/signing-keys';
import { WebhooksPage } from './pages/webhooks';
import { WorkerContactsPage, WorkerInboxPage, WorkerNotificationsPage, WorkerOfferPage } from './pages/worker';
import { SessionProvider, useSession } from './session';
import './styles.css';

/**
 * A page for one kind of signed-in person: nobody signed in is sent to that kind's sign-in, the
 * other kind of person to their own start page (a worker's session opens no portal page).
 */
function SignedIn({ kind, children }: { kind: 'portal-user' | 'worker'; children: ReactNode }) {
  const { person } = useSession();
  if (person === undefined) return <Loading what="your session" />;
  if (person === null) return <Navigate to={kind === 'worker' ? '/worker/sign-in' : '/sign-in'} replace />;
  if (person.kind !== kind) return <Navigate to={person.kind === 'worker' ? '/worker' : '/offers'} replace />;
  return <>{children}</>;
}

function Home() {
  const { person } = useSession();
  if (person === undefined) return <Loading what="your session" />;
  if (person?.kind === 'worker') return <Navigate to="/worker" replace />;
  return <Navigate to={person ? '/offers' : '/sign-in'} replace />;
}

const portal = (page: ReactNode) => <SignedIn kind="portal-user">{page}</SignedIn>;
const worker = (page: ReactNode) => <SignedIn kind="worker">{page}</SignedIn>;

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <SessionProvider>
      <BrowserRouter>
        <Routes>
          <Route element={<Layout area="portal" />}>
            <Route path="/" element={<Home />} />
            <Route path="/sign-in" element={<SignInPage audience="portal" />} />
            <Route path="/profile" element={portal(<CompanyProfilePage />)} />
            <Route path="/webhooks" element={portal(<WebhooksPage />)} />
            <Route path="/signing-keys" element={portal(<SigningKeysPage />)} />
            <Route path="/invites" element={portal(<InvitesPage />)} />
            <Route path="/offers" element={portal(<OffersPage />)} />
            <Route path="/offers/:offerId" element={portal(<OfferPage />)} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
          <Route element={<Layout area="worker" />}>
            <Route path="/worker/sign-in" element={<SignInPage audience="worker" />} />
            <Route path="/worker" element={worker(<WorkerInboxPage />)} />
            <Route path="/worker/offers/:offerId" element={worker(<WorkerOfferPage />)} />
            <Route path="/worker/notifications" element={worker(<WorkerNotificationsPage />)} />
            <Route path="/worker/contacts" element={worker(<WorkerContactsPage />)} />
            <Route path="/worker/*" element={<NotFoundPage />} />
            <Route path="/join" element={<JoinPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </SessionProvider>
  </StrictMode>,
);
