import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { CursorPages } from './hooks';

export function Problem({ text }: { text?: string }) {
  if (!text) return null;
  return (
    <p className="problem" role="alert">
      {text}
    </p>
  );
}

export function Done({ text }: { text?: string }) {
  if (!text) return null;
  return (
    <p className="done" role="status">
      {text}
    </p>
  );
}

/** An outcome that is not a success (nothing was done, for a reason that is no error): neutral, as a note. */
export function Notice({ text }: { text?: string }) {
  if (!text) return null;
  return (
    <p className="note" role="status">
      {text}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Page({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" dir="auto">
        {title}
      </h1>
      {children}
    </section>
  );
}

export function Badge({ tone, title, children }: { tone: 'good' | 'bad' | 'wait' | 'plain'; title?: string; children: ReactNode }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

export interface TimeSlot {
  start: string;
  end: string;
}

/** An offer's time slots (spec 2.2 events), each from start to end; `zoned` names the reader's time zone on each. */
export function TimeSlots({ slots, zoned = false }: { slots: TimeSlot[]; zoned?: boolean }) {
  return (
    <ul className="slots" aria-label="When">
      {slots.map((slot) => (
        <li key={slot.start}>
          <When at={slot.start} zoned={zoned} /> – <When at={slot.end} zoned={zoned} />
        </li>
      ))}
    </ul>
  );
}

/** With the zone's short name (e.g. "CET"): where a time is one to turn up at. */
const ZONED: Intl.DateTimeFormatOptions = { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };

/** A date and time in the reader's locale and time zone (the browser's), with the exact value for assistive technology. */
export function When({ at, zoned = false }: { at?: string | null; zoned?: boolean }) {
  if (!at) return <span className="muted">—</span>;
  return <time dateTime={at}>{zoned ? new Date(at).toLocaleString(undefined, ZONED) : new Date(at).toLocaleString()}</time>;
}

/** Names the time zone times are shown in: the browser's. */
export function TimeZoneNote() {
  return <p className="muted">Times are in your time zone, {Intl.DateTimeFormat().resolvedOptions().timeZone}.</p>;
}

/** A moment as a `datetime-local` input takes it (the reader's local time, to the minute). */
export function localDateTime(ms: number): string {
  const date = new Date(ms);
  return new Date(ms - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A page or a thing that is not there: what happened in words, and the way back. */
export function NotFound({ title, children, back }: { title: string; children: ReactNode; back: { to: string; label: string } }) {
  return (
    <Page title={title}>
      <p>{children}</p>
      <p>
        <Link to={back.to}>{back.label}</Link>
      </p>
    </Page>
  );
}

/**
 * A button for what cannot be undone: it asks first, in the page (a group named by the question,
 * focused on "yes"), and acts only when confirmed.
 */
export function ConfirmButton({
  label,
  question,
  consequence,
  yes,
  disabled,
  tone = 'danger',
  onConfirm,
}: {
  label: string;
  question: string;
  consequence: string;
  yes: string;
  disabled?: boolean;
  tone?: 'danger' | 'secondary';
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={tone} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <ConfirmQuestion
      question={question}
      consequence={consequence}
      yes={yes}
      disabled={disabled}
      onYes={() => {
        setAsking(false);
        onConfirm();
      }}
      onCancel={() => setAsking(false)}
    />
  );
}

/** The question a ConfirmButton asks, for a page that asks it itself (after looking up what it would do). */
export function ConfirmQuestion({
  question,
  consequence,
  yes,
  disabled,
  onYes,
  onCancel,
}: {
  question: string;
  consequence: string;
  yes: string;
  disabled?: boolean;
  onYes: () => void;
  onCancel: () => void;
}) {
  const yesButton = useRef<HTMLButtonElement>(null);
  useEffect(() => yesButton.current?.focus(), []);
  return (
    <div className="confirm" role="group" aria-label={question}>
      <p>
        <strong>{question}</strong> {consequence}
      </p>
      <button ref={yesButton} type="button" className="danger" disabled={disabled} onClick={onYes}>
        {yes}
      </button>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** Newer and older pages of a list, newest first, by the API's nextCursor; nothing while it all fits one page. */
export function Pager({ pages, nextCursor, label }: { pages: CursorPages; nextCursor?: string | null; label: string }) {
  if (pages.number === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="secondary" disabled={pages.number === 1} onClick={pages.newer}>
        Newer
      </button>
      <span className="muted" aria-live="polite">
        Page {pages.number}
      </span>
      <button type="button" className="secondary" disabled={!nextCursor} onClick={() => nextCursor && pages.older(nextCursor)}>
        Older
      </button>
    </nav>
  );
}
