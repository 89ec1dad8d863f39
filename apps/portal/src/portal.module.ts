import { type DynamicModule, Module } from '@nestjs/common';
import { createLoggerModule, HealthModule } from '@availability/service-core';
import { PortalConfig } from './config/portal.config.js';
import { DirectorySignIn } from './session/directory-sign-in.js';
import { type Clock, PORTAL_CLOCK, SessionCookie } from './session/session-cookie.js';
import { SessionController } from './session/session.controller.js';

export const SERVICE_NAME = 'portal';

@Module({})
export class PortalModule {
  static forRoot(config: PortalConfig, clock: Clock = () => new Date()): DynamicModule {
    return {
      module: PortalModule,
      global: true,
      // No database, NATS or Redis of its own: the services behind it hold everything.
      imports: [createLoggerModule(SERVICE_NAME, config), HealthModule.forRoot([])],
      controllers: [SessionController],
      providers: [{ provide: PortalConfig, useValue: config }, { provide: PORTAL_CLOCK, useValue: clock }, SessionCookie, DirectorySignIn],
    };
  }
}
