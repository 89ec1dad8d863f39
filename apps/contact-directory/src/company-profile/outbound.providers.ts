import { Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { OutboundClient } from '@availability/outbound-http';
import { SigningKeyRing } from '@availability/webhook-signing';
import { ContactDirectoryConfig, outboundClientOptions, secretKey, signingKeys } from '../config/contact-directory.config.js';
import { ImageReferences } from '../suggestions/image-references.js';
import { SuggestionFanOut } from '../suggestions/suggestion-fan-out.js';
import { SuggestionImages } from '../suggestions/suggestion-images.js';
import { SecretBox } from './secret-box.js';
import { WebhookEndpointChecker } from './webhook-endpoint.js';

/** Closes the integrator connection pool when the service stops. */
@Injectable()
export class OutboundClientCloser implements OnApplicationShutdown {
  constructor(private readonly client: OutboundClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/** The plain classes behind calls to integrators and secret storage, built from configuration. */
export const outboundProviders: Provider[] = [
  {
    provide: OutboundClient,
    inject: [ContactDirectoryConfig],
    useFactory: (config: ContactDirectoryConfig) => new OutboundClient(outboundClientOptions(config)),
  },
  {
    provide: SecretBox,
    inject: [ContactDirectoryConfig],
    useFactory: (config: ContactDirectoryConfig) => new SecretBox(secretKey(config)),
  },
  {
    // From configuration only (WEBHOOK_SIGNING_KEYS), shared with webhook-dispatcher, which publishes the public keys.
    provide: SigningKeyRing,
    inject: [ContactDirectoryConfig],
    useFactory: (config: ContactDirectoryConfig) => signingKeys(config),
  },
  {
    provide: WebhookEndpointChecker,
    inject: [OutboundClient, ContactDirectoryConfig, SigningKeyRing],
    useFactory: (client: OutboundClient, config: ContactDirectoryConfig, keys: SigningKeyRing) =>
      new WebhookEndpointChecker(client, config.WEBHOOK_TEST_TIMEOUT_MS, keys.active),
  },
  {
    provide: SuggestionFanOut,
    inject: [OutboundClient, ContactDirectoryConfig, SigningKeyRing],
    useFactory: (client: OutboundClient, config: ContactDirectoryConfig, keys: SigningKeyRing) =>
      new SuggestionFanOut(client, {
        timeoutMs: config.SUGGESTIONS_TIMEOUT_MS,
        maxReplyBytes: config.SUGGESTIONS_MAX_REPLY_BYTES,
        maxPerProvider: config.SUGGESTIONS_MAX_PER_PROVIDER,
        signingKey: keys.active,
      }),
  },
  {
    provide: ImageReferences,
    inject: [ContactDirectoryConfig],
    useFactory: (config: ContactDirectoryConfig) => new ImageReferences(secretKey(config)),
  },
  {
    provide: SuggestionImages,
    inject: [OutboundClient],
    useFactory: (client: OutboundClient) => new SuggestionImages(client),
  },
  OutboundClientCloser,
];
