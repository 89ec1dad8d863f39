import { OutboundClient } from '@availability/outbound-http';
import type { NotificationServiceConfig } from '../config/notification-service.config.js';
import type { PushTransport } from '../push/push-transport.js';
import { endpointProblem, pushServiceHosts } from './subscription-rules.js';
import { vapidKeys } from './vapid.js';
import type { WebPushSettings } from './web-push.controller.js';
import { DisabledWebPushTransport, WebPushTransport } from './web-push.transport.js';

/** The keys (checked: a pair, all set or none) and the endpoint rules, read once at start-up. */
export function webPushSettings(config: NotificationServiceConfig): WebPushSettings {
  return {
    vapid: vapidKeys(config),
    rules: { allowLoopback: config.WEB_PUSH_ALLOW_LOOPBACK === 'true', pushServiceHosts: pushServiceHosts(config.WEB_PUSH_SERVICE_HOSTS) },
  };
}

/**
 * The Web Push transport: requests go through the platform's outbound client, whose address policy
 * refuses loopback (unless WEB_PUSH_ALLOW_LOOPBACK), private and reserved addresses at every
 * connection: a subscription's endpoint comes from a browser, that is from a worker, so it must
 * never make the platform call into its own network.
 */
export function createWebPushTransport(config: NotificationServiceConfig, settings: WebPushSettings): PushTransport {
  if (!settings.vapid) return new DisabledWebPushTransport();
  const client = new OutboundClient({ policy: { allowLoopback: settings.rules.allowLoopback, allowPrivate: false }, connectionsPerOrigin: 64 });
  return new WebPushTransport(client, {
    vapid: settings.vapid,
    ttlSeconds: config.PUSH_TTL_SECONDS,
    timeoutMs: config.WEB_PUSH_TIMEOUT_MS,
    // Subscriptions kept from before a rule or the allow-list changed are held to it too.
    endpointProblem: (endpoint) => endpointProblem(endpoint, settings.rules),
  });
}
