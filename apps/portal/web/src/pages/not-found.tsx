import { useLocation } from 'react-router';
import { NotFound } from '../components';

/** Any address the application has no page for (the portal answers it with a 404 and this page). */
export function NotFoundPage() {
  const worker = useLocation().pathname.startsWith('/worker');
  return (
    <NotFound title="Page not found" back={worker ? { to: '/worker', label: 'Back to your offers' } : { to: '/', label: 'Back to the start' }}>
      There is no page at this address. It may be mistyped, or the page has moved.
    </NotFound>
  );
}
