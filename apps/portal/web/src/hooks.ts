import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem, problemText } from './api';

/** Data a page loads: the value, the failure in words (and whether it was a 404), and a way to load it again. */
export function useLoad<T>(load: () => Promise<T>, dependencies: unknown[] = [], refreshMs?: number) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [notFound, setNotFound] = useState(false);
  const loadRef = useRef(load);
  loadRef.current = load;
  // Bumped when the dependencies change: an answer to a load made before (another page, another filter) is dropped.
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = generation.current;
    try {
      const next = await loadRef.current();
      if (mine !== generation.current) return;
      // An unchanged answer (304) keeps what is shown.
      if (next !== undefined) setValue(next);
      setError(undefined);
      setNotFound(false);
    } catch (failure) {
      if (mine !== generation.current) return;
      setError(problemText(failure));
      setNotFound(failure instanceof ApiProblem && failure.status === 404);
    }
  }, []);
  useEffect(() => {
    generation.current += 1;
    void reload();
    if (refreshMs === undefined) return undefined;
    const timer = window.setInterval(() => void reload(), refreshMs);
    return () => window.clearInterval(timer);
    // The caller names what the load depends on; `load` itself is a new function every render.
  }, dependencies);
  return { value, error, notFound, reload, setValue };
}

/**
 * Pages of a list the API pages by cursor, newest first: `before` is the cursor of the page shown
 * (undefined: the first); `older` goes on with the page's nextCursor, `newer` back, `reset` to the first.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    before: cursors.at(-1),
    number: cursors.length + 1,
    older: (nextCursor: string) => setCursors([...cursors, nextCursor]),
    newer: () => setCursors(cursors.slice(0, -1)),
    reset: () => setCursors([]),
  };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

/** An action a button starts: whether it runs, and its outcome in words. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const run = useCallback(async (action: () => Promise<string | void>) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const message = await action();
      if (message) setDone(message);
    } catch (failure) {
      setError(problemText(failure));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run };
}
