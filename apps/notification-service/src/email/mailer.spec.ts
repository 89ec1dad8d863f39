import { describe, expect, it } from '@jest/globals';
import { isPermanentSmtpFailure } from './mailer.js';

/** Errors shaped as nodemailer reports them: a code for the step that failed, the relay's reply code. */
const failure = (code: string, responseCode?: number) => Object.assign(new Error(code), { code, responseCode });

describe('which SMTP failures end an e-mail', () => {
  it('the relay refusing the message or its recipients for good (5xx to MAIL FROM, RCPT TO or DATA)', () => {
    expect(isPermanentSmtpFailure(failure('EENVELOPE', 550))).toBe(true);
    expect(isPermanentSmtpFailure(failure('EENVELOPE', 553))).toBe(true);
    expect(isPermanentSmtpFailure(failure('EMESSAGE', 554))).toBe(true);
  });

  it('not the relay refusing us: STARTTLS unanswered, credentials refused, a bad sequence; nor a 4xx or a broken connection', () => {
    // A relay that does not know STARTTLS answers 500; fixed (or freed of whoever stripped it), it takes the same message.
    expect(isPermanentSmtpFailure(failure('ETLS', 500))).toBe(false);
    expect(isPermanentSmtpFailure(failure('EAUTH', 535))).toBe(false);
    expect(isPermanentSmtpFailure(failure('EENVELOPE', 503))).toBe(false);
    expect(isPermanentSmtpFailure(failure('EENVELOPE', 451))).toBe(false);
    expect(isPermanentSmtpFailure(failure('ESOCKET'))).toBe(false);
    expect(isPermanentSmtpFailure(failure('ECONNECTION'))).toBe(false);
    expect(isPermanentSmtpFailure(new Error('anything else'))).toBe(false);
  });
});
