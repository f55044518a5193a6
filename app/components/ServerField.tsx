import { useState, type ReactElement } from 'react';

import {
  checkServer,
  INVALID_SERVER_MESSAGE,
  normaliseServerAddress,
  serverAddress,
  useServerAddress,
} from '../services/serverAddress';
import { toast } from '../state/toast';
import { TextField } from './TextField';
import { t } from '../i18n';

export interface ServerFieldControl {
  /** The field (null on the web). */
  field: ReactElement | null;
  /** Checks a changed address with GET <server>/readyz and remembers it; true when requests may go. */
  ensure: () => Promise<boolean>;
  checking: boolean;
}

/**
 * Android / iOS: the sign-in screen's "Server" field. It shows the server in
 * use (the build's default until changed); a changed address is checked with
 * GET <server>/readyz before anything is sent there, then remembered.
 * (The web uses its own origin: ServerField.web.tsx.)
 */
export function useServerField(): ServerFieldControl {
  const saved = useServerAddress();
  const [text, setText] = useState(saved);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const ensure = async (): Promise<boolean> => {
    const origin = normaliseServerAddress(text);
    if (!origin) {
      setError(t(INVALID_SERVER_MESSAGE));
      return false;
    }
    if (origin === serverAddress.get()) {
      setError(null);
      return true;
    }
    setChecking(true);
    const check = await checkServer(origin);
    setChecking(false);
    if (!check.ok) {
      setError(check.message);
      toast.error(check.message);
      return false;
    }
    setError(null);
    setText(origin);
    await serverAddress.set(origin);
    return true;
  };

  const field = (
    <TextField
      label={t('Server')}
      testID="server-address"
      value={text}
      onChangeText={(v) => {
        setText(v);
        setError(null);
      }}
      error={error}
      hint={t('The Meridian server, e.g. https://bank.example.com')}
      autoCapitalize="none"
      autoCorrect={false}
      keyboardType="url"
      inputMode="url"
      textContentType="URL"
      returnKeyType="next"
    />
  );
  return { field, ensure, checking };
}
