import { accepted, type ProbeAnswer } from '@availability/outbound-http';
import { DEFAULT_TOLERANCE_SECONDS, STALE_PROBE_AGE_SECONDS } from '@availability/webhook-signing';

/**
 * The two `/test/auth` calls that must be refused, sent beside the correctly signed one: `wrongSecret`
 * signed with a secret that is not the organisation's, `stale` signed correctly but
 * {@link STALE_PROBE_AGE_SECONDS} ago.
 */
export interface VerificationProbes {
  wrongSecret: ProbeAnswer;
  stale: ProbeAnswer;
}

export type VerificationVerdict =
  | { kind: 'verified' }
  /** Not saved: the endpoint does not verify (strict, production). */
  | { kind: 'refuse'; message: string }
  /** Saved, with this warning kept on the profile until a later check passes. */
  | { kind: 'warn'; message: string };

/** What an integrator must fix, one sentence for each probe its endpoint accepted. */
export function verificationProblems(probes: VerificationProbes): string[] {
  const problems: string[] = [];
  if (accepted(probes.wrongSecret)) {
    problems.push(
      'your endpoint accepted a GET /test/auth signed with the wrong secret: it must answer 401 unless the signature verifies with your secret',
    );
  }
  if (accepted(probes.stale)) {
    problems.push(
      `your endpoint accepted a GET /test/auth whose Timestamp was ${STALE_PROBE_AGE_SECONDS / 60} minutes old: it must answer 401 when the ` +
        `timestamp is more than ${DEFAULT_TOLERANCE_SECONDS / 60} minutes from its clock, so a recorded call cannot be replayed`,
    );
  }
  return problems;
}

/**
 * What the answers to the forged and stale `/test/auth` mean for the set-up (spec 5.3: 200 only when the
 * headers verified). Strict (production): an endpoint that accepts either is not saved, since anyone
 * could then send it webhooks. Otherwise it is saved with a warning, so a developer can wire up an
 * endpoint step by step and still see what is missing.
 */
export class VerificationPolicy {
  constructor(private readonly strict: boolean) {}

  judge(probes: VerificationProbes): VerificationVerdict {
    const problems = verificationProblems(probes);
    if (problems.length === 0) return { kind: 'verified' };
    const sentence = `${capitalise(problems.join('; and '))}.`;
    if (this.strict) return { kind: 'refuse', message: `${sentence} The base URL and secret were not saved.` };
    return { kind: 'warn', message: `${sentence} Saved outside production only; a production platform refuses this set-up.` };
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
