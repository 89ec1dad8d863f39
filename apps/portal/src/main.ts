import 'reflect-metadata';
import cookie from '@fastify/cookie';
import { createHttpService, loadConfig, runMain, startTracing } from '@availability/service-core';
import { installApiProxy } from './api-proxy/api-proxy.js';
import { PortalConfig } from './config/portal.config.js';
import { PortalModule } from './portal.module.js';
import { refuseCrossSiteChanges } from './session/same-origin.js';
import { SessionCookie } from './session/session-cookie.js';
import { installWebApp, webDirectory } from './web-app/web-app.js';

/** Bodies the pages send are small forms; the services behind bound them again. */
const BODY_LIMIT_BYTES = 256 * 1024;

export async function startPortal(config: PortalConfig) {
  const app = await createHttpService(PortalModule.forRoot(config), config, {
    service: 'portal',
    bodyLimit: BODY_LIMIT_BYTES,
    openApi: {
      title: 'Portal',
      description:
        'The web portal and worker web app: its pages, sign-in by e-mailed link with a session cookie, and `/api/<service>/…`, ' +
        'which forwards the pages’ calls to the services’ portal and worker APIs as the signed-in person.',
      version: '1.0',
    },
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(cookie, { secret: config.PORTAL_COOKIE_SECRET });
  // Before the proxy's scope is registered, so its routes inherit the check too.
  refuseCrossSiteChanges(fastify, config.PORTAL_URL);
  await installApiProxy(fastify, config, app.get(SessionCookie));
  await installWebApp(fastify, webDirectory(config.PORTAL_WEB_DIR));
  await app.listen(config.PORT, config.HTTP_HOST);
  return app;
}

// Started directly (not imported by a test or the dev launcher).
if (import.meta.url === `file://${process.argv[1]}`) {
  await runMain('portal', async () => {
    const config = loadConfig(PortalConfig);
    startTracing('portal', config);
    await startPortal(config);
  });
}
