import { type DynamicModule, Module } from '@nestjs/common';
import { createLoggerModule, HealthModule } from '@availability/service-core';
import { PortalConfig } from './config/portal.config.js';
import { DirectorySignIn } from './session/directory-sign-in.js';
import { PortalSignIn } from './session/portal-sign-in.js';
import { SessionCookie } from './session/session-cookie.js';
import { type Clock, PORTAL_CLOCK, SessionStore, SessionStoreHealth } from './session/session-store.js';
import { SessionController } from './session/session.controller.js';

export const SERVICE_NAME = 'portal';

@Module({})
export class PortalModule {
  static forRoot(config: PortalConfig, clock: Clock = () => new Date()): DynamicModule {
    return {
      module: PortalModule,
      global: true,
      // No database or NATS of its own: the services behind it hold everything but the sessions (in Redis).
      imports: [createLoggerModule(SERVICE_NAME, config), HealthModule.forRoot([SessionStoreHealth])],
      controllers: [SessionController],
      providers: [
        { provide: PortalConfig, useValue: config },
        { provide: PORTAL_CLOCK, useValue: clock },
        SessionStore,
        SessionCookie,
        DirectorySignIn,
        PortalSignIn,
      ],
      // For the health check's contributor, which HealthModule makes.
      exports: [SessionStore],
    };
  }
}
