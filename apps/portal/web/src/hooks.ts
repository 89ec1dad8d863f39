import { useCallback, useEffect, useRef, useState } from 'react';
import { problemText } from './api';

/** Data a page loads: the value, the failure in words, and a way to load it again. */
export function useLoad<T>(load: () => Promise<T>, dependencies: unknown[] = [], refreshMs?: number) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(async () => {
    try {
      const next = await loadRef.current();
      // An unchanged answer (304) keeps what is shown.
      if (next !== undefined) setValue(next);
      setError(undefined);
    } catch (failure) {
      setError(problemText(failure));
    }
  }, []);
  useEffect(() => {
    void reload();
    if (refreshMs === undefined) return undefined;
    const timer = window.setInterval(() => void reload(), refreshMs);
    return () => window.clearInterval(timer);
    // The caller names what the load depends on; `load` itself is a new function every render.
  }, dependencies);
  return { value, error, reload, setValue };
}

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
