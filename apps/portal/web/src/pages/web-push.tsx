import { useEffect, useState } from 'react';
import { api } from '../api';
import { Done, Problem } from '../components';
import { useAction } from '../hooks';

const NOTIFICATIONS = '/api/notifications/worker';

/** The VAPID key as the browser's subscribe() wants it. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  return Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
}

/**
 * Offers, completions and withdrawals pushed to this browser (Web Push): the service worker shows
 * them, and the subscription is registered with the notification service for this worker.
 */
export function WebPushSwitch() {
  const supported = typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window;
  const [subscribed, setSubscribed] = useState<boolean | undefined>(undefined);
  const action = useAction();

  useEffect(() => {
    if (!supported) return;
    void navigator.serviceWorker.getRegistration('/worker/').then(async (registration) => setSubscribed(Boolean(await registration?.pushManager.getSubscription())));
  }, [supported]);

  if (!supported) return null;
  const subscribe = () =>
    void action.run(async () => {
      if ((await Notification.requestPermission()) !== 'granted') throw new Error('Notifications are blocked for this site in your browser’s settings.');
      const { publicKey } = await api<{ publicKey: string }>(`${NOTIFICATIONS}/web-push/key`);
      const registration = await navigator.serviceWorker.register('/sw.js', { scope: '/worker/' });
      await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
      await api(`${NOTIFICATIONS}/web-push-subscriptions`, { method: 'PUT', body: subscription.toJSON() });
      setSubscribed(true);
      return 'This browser will show new offers.';
    });

  return (
    <div className="card push">
      {subscribed ? (
        <p>New offers are pushed to this browser.</p>
      ) : (
        <button type="button" className="secondary" disabled={action.busy} onClick={subscribe}>
          Show new offers on this device
        </button>
      )}
      <Problem text={action.error} />
      <Done text={action.done} />
    </div>
  );
}
