// The worker app's service worker: shows what the notification service pushes (Web Push), opens the
// offer when the notification is clicked, and answers a page the network cannot reach with the
// offline page (kept when the worker is installed), so the app shell says so instead of failing.
const SHELL_CACHE = 'worker-shell-v1';
const OFFLINE_PAGE = '/offline.html';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(SHELL_CACHE).then((cache) => cache.addAll([OFFLINE_PAGE, '/manifest.webmanifest', '/icon-192.png'])));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== SHELL_CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

// Only page loads: API calls and files go to the network as they are, never from a cache.
self.addEventListener('fetch', (event) => {
  if (event.request.mode !== 'navigate') return;
  event.respondWith(fetch(event.request).catch(() => caches.match(OFFLINE_PAGE)));
});

// One notification per offer (its id is the tag): a push of a lower stage than the one shown (it
// arrived late) is ignored, so the worker never sees an offer go back to an earlier stage.
self.addEventListener('push', (event) => {
  const message = event.data ? event.data.json() : {};
  const title = message.title || 'Availability';
  const stageOrder = Number(message.stageOrder) || 0;
  const show = () =>
    self.registration.showNotification(title, {
      body: message.body || '',
      tag: message.offerId,
      data: { url: message.offerId ? `/worker/offers/${message.offerId}` : '/worker', stageOrder },
    });
  const shown = message.offerId ? self.registration.getNotifications({ tag: message.offerId }) : Promise.resolve([]);
  event.waitUntil(
    shown.then((notifications) => {
      const highest = Math.max(0, ...notifications.map((n) => Number(n.data && n.data.stageOrder) || 0));
      return stageOrder < highest ? undefined : show();
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url));
});
