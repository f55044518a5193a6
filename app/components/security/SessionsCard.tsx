import { useState } from 'react';
import { View, type ViewStyle } from 'react-native';

import { useErrorToast } from '../../hooks/useErrorToast';
import { errorMessage } from '../../services/api/client';
import { useEndOtherSessions, useEndSession, useSessions } from '../../services/api/sessions';
import type { SignedInSession } from '../../services/api/types';
import { toast } from '../../state/toast';
import { useTwoFactorGate } from '../../state/twoFactorGate';
import { type ThemedStyle, useThemedStyles } from '../../theme';
import { listRow } from './listRow';
import { formatFullDate, formatRelativeTime } from '../../utils/relativeTime';
import { describeUserAgent } from '../../utils/twoFactor';
import { Badge } from '../Badge';
import { Button } from '../Button';
import { Card } from '../Card';
import { ConfirmDialog } from '../ConfirmDialog';
import { Text } from '../Text';
import { t } from '../../i18n';

/** The signed-in sessions: this device marked, a Sign out button on each other, and all others at once. */
export function SessionsCard() {
  const styles = useThemedStyles(themed);
  // require_2fa_for_admins: the server refuses the list until two-factor sign-in is on.
  const gated = useTwoFactorGate((s) => s.message !== null);
  const sessions = useSessions(!gated);
  const endOne = useEndSession();
  const endOthers = useEndOtherSessions();
  const [busyId, setBusyId] = useState<number | null>(null);
  const [confirmOthers, setConfirmOthers] = useState(false);

  useErrorToast(sessions.error, sessions.errorUpdatedAt, (err) => errorMessage(err, t('Failed to fetch sessions')));

  const rows = Array.isArray(sessions.data) ? sessions.data : [];
  const others = rows.filter((s) => !s.current).length;

  const signOut = (s: SignedInSession) => {
    setBusyId(s.id);
    endOne.mutate(s.id, {
      onSuccess: () => toast.success(t('Session signed out')),
      onError: (err) => toast.error(errorMessage(err, t('Failed to sign the session out'))),
      onSettled: () => setBusyId(null),
    });
  };

  const signOutOthers = () => {
    endOthers.mutate(undefined, {
      onSuccess: () => toast.success(t('Every other session is signed out')),
      onError: (err) => toast.error(errorMessage(err, t('Failed to sign the other sessions out'))),
      onSettled: () => setConfirmOthers(false),
    });
  };

  let body;
  if (gated) body = <Text variant="muted">{t('Your sessions are listed here once two-factor sign-in is on.')}</Text>;
  else if (sessions.isPending) body = <Text variant="muted">{t('Loading sessions...')}</Text>;
  else if (sessions.isError) body = <Text variant="muted">{t('Sessions could not be read. Try again later.')}</Text>;
  else
    body = (
      <View role="list" aria-label={t('Signed-in sessions')} style={styles.list} testID="sessions-list">
        {rows.map((s) => (
          <SessionRow key={s.id} session={s} busy={busyId === s.id} disabled={busyId !== null && busyId !== s.id} onSignOut={() => signOut(s)} />
        ))}
      </View>
    );

  return (
    <Card title={t('Signed-in sessions')} testID="sessions-card">
      <Text variant="muted">{t('Where your account is signed in. Sign out any you do not recognise.')}</Text>
      {body}
      <View style={styles.row}>
        <Button
          title={t('Sign out all other sessions')}
          variant="outline"
          disabled={others === 0 || !sessions.isSuccess}
          loading={endOthers.isPending}
          onPress={() => setConfirmOthers(true)}
          testID="sessions-revoke-others"
        />
      </View>
      <ConfirmDialog
        visible={confirmOthers}
        title={t('Sign out all other sessions')}
        message={t('Sign out {{count}} other sessions? This device stays signed in.', { count: others })}
        confirmLabel={t('Sign out')}
        busy={endOthers.isPending}
        onConfirm={signOutOthers}
        onCancel={() => setConfirmOthers(false)}
        testID="sessions-revoke-others-dialog"
      />
    </Card>
  );
}

interface SessionRowProps {
  session: SignedInSession;
  busy: boolean;
  disabled: boolean;
  onSignOut: () => void;
}

/** One session: device, address, when it signed in and was last seen. */
function SessionRow({ session, busy, disabled, onSignOut }: SessionRowProps) {
  const styles = useThemedStyles(themed);
  const device = describeUserAgent(session.user_agent);
  return (
    <View role="listitem" style={styles.item} testID={`session-${session.id}`}>
      <View style={styles.info}>
        <View style={styles.titleRow}>
          <Text variant="label">{device}</Text>
          {session.current ? <Badge label={t('This device')} tone="info" testID={`session-current-${session.id}`} /> : null}
        </View>
        <Text variant="small">{session.ip ? t('From {{ip}}', { ip: session.ip }) : t('Address unknown')}</Text>
        <Text variant="small">{t('Signed in {{date}} · last active {{ago}}', { date: formatFullDate(new Date(session.created_at)), ago: formatRelativeTime(session.last_seen_at) })}</Text>
      </View>
      {session.current ? null : (
        <Button
          title={t('Sign out')}
          size="sm"
          variant="outline"
          loading={busy}
          disabled={disabled}
          accessibilityLabel={session.ip ? t('Sign out {{device}} from {{ip}}', { device, ip: session.ip }) : t('Sign out {{device}}', { device })}
          onPress={onSignOut}
          testID={`session-signout-${session.id}`}
        />
      )}
    </View>
  );
}

const themed: ThemedStyle<{ list: ViewStyle; item: ViewStyle; info: ViewStyle; titleRow: ViewStyle; row: ViewStyle }> = (theme) => ({
  list: { gap: 0 },
  ...listRow(theme),
  titleRow: { flexDirection: 'row', flexWrap: 'wrap', alignItems: 'center', gap: theme.spacing.sm },
  row: { flexDirection: 'row', flexWrap: 'wrap', gap: theme.spacing.sm },
});
