import { useState } from 'react';
import { View, type TextStyle, type ViewStyle } from 'react-native';

import { useErrorToast } from '../../hooks/useErrorToast';
import { errorMessage } from '../../services/api/client';
import { useAccessTokens, useCreateAccessToken, useRevokeAccessToken } from '../../services/api/programs';
import { useTwoFactorStatus } from '../../services/api/twoFactor';
import type { AccessToken, NewAccessToken, Scope } from '../../services/api/types';
import { useSession } from '../../state/session';
import { toast } from '../../state/toast';
import { useTwoFactorGate } from '../../state/twoFactorGate';
import { type ThemedStyle, useThemedStyles } from '../../theme';
import { listRow } from './listRow';
import { formatFullDate, formatRelativeTime } from '../../utils/relativeTime';
import { checkTokenDays, scopeLabel, scopesFor } from '../../utils/scopes';
import { Button } from '../Button';
import { Card } from '../Card';
import { Checkbox } from '../Checkbox';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { t } from '../../i18n';

/** Personal access tokens (contract §9): a program's key to the API, for the scopes chosen; shown once, revoked here. */
export function AccessTokensCard() {
  const styles = useThemedStyles(themed);
  const gated = useTwoFactorGate((s) => s.message !== null);
  const tokens = useAccessTokens(!gated);
  const revoke = useRevokeAccessToken();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewAccessToken | null>(null);
  const [busyId, setBusyId] = useState<number | null>(null);
  useErrorToast(tokens.error, tokens.errorUpdatedAt, (err) => errorMessage(err, t('Failed to fetch access tokens')));

  const rows = Array.isArray(tokens.data) ? tokens.data : [];
  const onRevoke = (token: AccessToken) => {
    setBusyId(token.id);
    revoke.mutate(token.id, {
      onSuccess: () => toast.success(t('Access token "{{name}}" revoked', { name: token.name })),
      onError: (err) => toast.error(errorMessage(err, t('Failed to revoke the access token'))),
      onSettled: () => setBusyId(null),
    });
  };

  return (
    <Card title={t('Access tokens')} testID="access-tokens-card">
      <Text variant="muted">{t('Keys for your own scripts and tools to use the API for you, limited to what you allow. Never share one.')}</Text>
      {created ? (
        <View role="alert" style={styles.created} testID="access-token-created">
          <Text variant="label">{t('Copy your new token now: it is not shown again.')}</Text>
          <Text selectable style={styles.secret} testID="access-token-text">
            {created.token}
          </Text>
          <Button title={t('Done')} size="sm" variant="outline" onPress={() => setCreated(null)} testID="access-token-done" />
        </View>
      ) : null}
      {gated ? null : tokens.isPending ? (
        <Text variant="muted">{t('Loading access tokens...')}</Text>
      ) : rows.length === 0 ? (
        <Text variant="muted" testID="access-tokens-empty">
          {t('No access tokens.')}
        </Text>
      ) : (
        <View role="list" aria-label={t('Access tokens')} testID="access-tokens-list">
          {rows.map((token) => (
            <View key={token.id} role="listitem" style={styles.item} testID={`access-token-${token.id}`}>
              <View style={styles.info}>
                <Text variant="label">{token.name}</Text>
                <Text variant="small">{token.scopes.join(', ')}</Text>
                <Text variant="small">
                  {t('Expires {{date}} · last used {{when}}', { date: formatFullDate(new Date(token.expires_at)), when: formatRelativeTime(token.last_used_at) })}
                </Text>
              </View>
              <Button
                title={t('Revoke')}
                size="sm"
                variant="outline"
                loading={busyId === token.id}
                disabled={busyId !== null && busyId !== token.id}
                accessibilityLabel={t('Revoke {{name}}', { name: token.name })}
                onPress={() => onRevoke(token)}
                testID={`access-token-revoke-${token.id}`}
              />
            </View>
          ))}
        </View>
      )}
      <View style={styles.row}>
        <Button title={t('Create token')} variant="outline" disabled={gated} onPress={() => setCreating(true)} testID="access-token-create" />
      </View>
      <CreateAccessTokenModal
        visible={creating}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setCreated(token);
        }}
      />
    </Card>
  );
}

interface CreateProps {
  visible: boolean;
  onClose: () => void;
  onCreated: (token: NewAccessToken) => void;
}

/** Name, scopes, how long, and the password (and a code with two-factor sign-in on). */
function CreateAccessTokenModal({ visible, onClose, onCreated }: CreateProps) {
  const styles = useThemedStyles(themed);
  const role = useSession((s) => s.user?.role);
  const twoFactor = useTwoFactorStatus();
  const create = useCreateAccessToken();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [days, setDays] = useState('30');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Record<string, string | null>>({});

  const reset = () => {
    setName('');
    setScopes([]);
    setDays('30');
    setPassword('');
    setCode('');
    setErrors({});
  };
  const close = () => {
    reset();
    onClose();
  };
  const submit = () => {
    const next = {
      name: name.trim() ? null : t('Name the token'),
      scopes: scopes.length ? null : t('Pick at least one scope'),
      days: checkTokenDays(days),
      password: password ? null : t('Enter your password'),
    };
    setErrors(next);
    if (Object.values(next).some(Boolean)) return;
    create.mutate(
      { name: name.trim(), scopes, expires_in_days: Number(days), password, code: code || undefined },
      {
        onSuccess: (token) => {
          reset();
          onCreated(token);
        },
        onError: (err) => setErrors({ form: errorMessage(err, t('Failed to create the access token')) }),
      },
    );
  };

  return (
    <FormModal visible={visible} onClose={close} title={t('Create an access token')} submitTitle={t('Create')} onSubmit={submit} submitting={create.isPending} testIDPrefix="access-token">
      <TextField label={t('Name')} required value={name} onChangeText={setName} error={errors.name} hint={t('What will use it, e.g. Budget script')} testID="access-token-name" />
      <View role="group" aria-label={t('Scopes')} style={styles.scopes}>
        {scopesFor(role).map((s) => (
          <Checkbox
            key={s}
            label={`${s}: ${scopeLabel(s)}`}
            checked={scopes.includes(s)}
            onChange={(on) => setScopes((cur) => (on ? [...cur, s] : cur.filter((x) => x !== s)))}
            testID={`access-token-scope-${s}`}
          />
        ))}
        {errors.scopes ? (
          <Text role="alert" style={styles.error}>
            {errors.scopes}
          </Text>
        ) : null}
      </View>
      <TextField label={t('Expires in (days)')} type="number" required value={days} onChangeText={setDays} error={errors.days} testID="access-token-days" />
      <TextField
        label={t('Password')}
        type="password"
        required
        value={password}
        onChangeText={setPassword}
        error={errors.password}
        autoComplete="current-password"
        testID="access-token-password"
      />
      {twoFactor.data?.enabled ? (
        <TextField
          label={t('Code')}
          value={code}
          onChangeText={setCode}
          hint={t('A code from your authenticator app (not needed within 5 minutes of signing in with one)')}
          autoCapitalize="none"
          autoComplete="one-time-code"
          testID="access-token-code"
        />
      ) : null}
      {errors.form ? (
        <Text role="alert" style={styles.error} testID="access-token-error">
          {errors.form}
        </Text>
      ) : null}
    </FormModal>
  );
}

const themed: ThemedStyle<{
  item: ViewStyle;
  info: ViewStyle;
  row: ViewStyle;
  created: ViewStyle;
  secret: TextStyle;
  scopes: ViewStyle;
  error: TextStyle;
}> = (theme) => ({
  ...listRow(theme),
  row: { flexDirection: 'row', flexWrap: 'wrap', gap: theme.spacing.sm },
  created: { gap: theme.spacing.sm, padding: theme.spacing.md, borderRadius: theme.radius.md, backgroundColor: theme.colors.warningMuted },
  secret: { fontFamily: 'monospace', color: theme.colors.text },
  scopes: { gap: theme.spacing.sm },
  error: { color: theme.colors.danger },
});
