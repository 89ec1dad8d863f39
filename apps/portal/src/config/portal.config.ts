import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';
import { InProduction, IsHttpUrl, realSecret, ServiceConfig } from '@availability/service-core';

/** Settings of the portal: where the browser finds it, and the services it stands in front of. */
export class PortalConfig extends ServiceConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3005;

  /**
   * The address people open (scheme, host and port, no path): sign-in links point here, and a
   * request that changes anything must come from a page of this origin (the CSRF check).
   */
  @IsHttpUrl()
  @InProduction((value) => (String(value).startsWith('https://') ? undefined : 'must be an https:// address'))
  PORTAL_URL = 'http://localhost:3005';

  @IsHttpUrl()
  DIRECTORY_URL = 'http://127.0.0.1:3001';

  @IsHttpUrl()
  OFFERS_API_URL = 'http://127.0.0.1:3000';

  @IsHttpUrl()
  NOTIFICATION_SERVICE_URL = 'http://127.0.0.1:3002';

  @IsHttpUrl()
  WEBHOOK_DISPATCHER_URL = 'http://127.0.0.1:3003';

  /**
   * Signs the session cookie, so a cookie the portal did not set is refused before the session store
   * is asked. The cookie holds only a random session id; a new secret signs everyone out. Never logged.
   */
  @IsString()
  @InProduction(realSecret('dev-portal-cookie-secret-0123456789'))
  PORTAL_COOKIE_SECRET = 'dev-portal-cookie-secret-0123456789';

  /**
   * On: the session cookie is `__Host-portal_session`, Secure (browsers then send it over https only,
   * and keep it from http://localhost too). Off: `portal_session` without Secure, for development over
   * plain http at an address other than localhost. Always on in production.
   */
  @IsBoolean()
  @InProduction((value) => (value === true ? undefined : 'must be on (cookies over https only)'))
  PORTAL_COOKIE_SECURE = true;

  /** Where the built web application is (defaults to the build next to this service). */
  @IsString()
  PORTAL_WEB_DIR = '';
}
