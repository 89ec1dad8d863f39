import type { ReactNode } from 'react';

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
      <h1 id="page-title">{title}</h1>
      {children}
    </section>
  );
}

export function Badge({ tone, children }: { tone: 'good' | 'bad' | 'wait' | 'plain'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

export interface TimeSlot {
  start: string;
  end: string;
}

/** An offer's time slots (spec 2.2 events), each from start to end. */
export function TimeSlots({ slots }: { slots: TimeSlot[] }) {
  return (
    <ul className="slots" aria-label="When">
      {slots.map((slot) => (
        <li key={slot.start}>
          <When at={slot.start} /> – <When at={slot.end} />
        </li>
      ))}
    </ul>
  );
}

/** A date and time in the reader's locale, with the exact value for assistive technology. */
export function When({ at }: { at?: string | null }) {
  if (!at) return <span className="muted">—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}
