// The worker app's service worker: shows what the notification service pushes (Web Push) and opens
// the offer when the notification is clicked.
self.addEventListener('push', (event) => {
  const message = event.data ? event.data.json() : {};
  const title = message.title || 'Availability';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: message.body || '',
      tag: message.offerId,
      data: { url: message.offerId ? `/worker/offers/${message.offerId}` : '/worker' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url));
});
