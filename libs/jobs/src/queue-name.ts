/**
 * Every BullMQ queue of the platform. The names are stored in Redis keys: never rename one, add a
 * new name and drain the old queue instead.
 */
export enum QueueName {
  /** One job per (event, integrator endpoint): the signed HTTP call and its retries. */
  WebhookDelivery = 'webhook-delivery',
  /** One job per (event, batch of up to 500 device tokens): a firebase-admin sendEach call. */
  PushNotification = 'push-notification',
  /** One job per e-mail: invitations and offer notifications. */
  Email = 'email',
}
