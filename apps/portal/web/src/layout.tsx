import { useEffect } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useSession } from './session';

const PORTAL_PAGES = [
  { to: '/offers', label: 'Offers' },
  { to: '/invites', label: 'Invites' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/signing-keys', label: 'Signing keys' },
  { to: '/profile', label: 'Company profile' },
];

const WORKER_PAGES = [
  { to: '/worker', label: 'Offers' },
  { to: '/worker/notifications', label: 'Notifications' },
  { to: '/worker/contacts', label: 'Contacts' },
];

export function Layout({ area }: { area: 'portal' | 'worker' }) {
  const { person, signOut } = useSession();
  const pages = area === 'portal' ? PORTAL_PAGES : WORKER_PAGES;
  useEffect(() => {
    // The worker app's shell: its service worker keeps the offline page for when the network is down.
    if (area === 'worker' && 'serviceWorker' in navigator) void navigator.serviceWorker.register('/sw.js', { scope: '/worker/' }).catch(() => undefined);
  }, [area]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <p className="brand">{area === 'portal' ? 'Availability Portal' : 'Availability'}</p>
        {person && (
          <nav aria-label="Main">
            <ul>
              {pages.map((page) => (
                <li key={page.to}>
                  <NavLink to={page.to} end={page.to === '/worker'}>
                    {page.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {person && (
          <div className="who">
            <span>
              <bdi>{person.name}</bdi>
              {person.organisationName && (
                <>
                  {' · '}
                  <bdi>{person.organisationName}</bdi>
                </>
              )}
            </span>
            <button type="button" className="link-button" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
