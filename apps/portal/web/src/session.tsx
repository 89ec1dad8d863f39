import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { api, type SignedInPerson } from './api';

interface SessionState {
  /** undefined while the portal is asked; null when nobody is signed in. */
  person: SignedInPerson | null | undefined;
  signedIn(person: SignedInPerson): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState>({ person: undefined, signedIn: () => undefined, signOut: async () => undefined });

export function SessionProvider({ children }: { children: ReactNode }) {
  const [person, setPerson] = useState<SignedInPerson | null | undefined>(undefined);
  useEffect(() => {
    api<SignedInPerson>('/session').then(setPerson, () => setPerson(null));
    const signedOut = () => setPerson(null);
    window.addEventListener('portal:signed-out', signedOut);
    return () => window.removeEventListener('portal:signed-out', signedOut);
  }, []);
  const signOut = useCallback(async () => {
    await api('/session', { method: 'DELETE' });
    setPerson(null);
  }, []);
  return <SessionContext.Provider value={{ person, signedIn: setPerson, signOut }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  return useContext(SessionContext);
}
