import { useState } from 'react';
import { View, type TextStyle, type ViewStyle } from 'react-native';

import { useErrorToast } from '../../hooks/useErrorToast';
import { useTwoFactorFlow } from '../../hooks/useTwoFactorFlow';
import { type ThemedStyle, useThemedStyles } from '../../theme';
import { groupSecret } from '../../utils/twoFactor';
import { Badge } from '../Badge';
import { Button } from '../Button';
import { Card } from '../Card';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { BackupCodes } from './BackupCodes';
import { DisableTwoFactorModal } from './DisableTwoFactorModal';
import { QrCode } from './QrCode';
import { t } from '../../i18n';

/** The Security page's two-factor section: state, set up (QR code, secret, code), backup codes, turn off. */
export function TwoFactorCard() {
  const styles = useThemedStyles(themed);
  const flow = useTwoFactorFlow();
  const [disableOpen, setDisableOpen] = useState(false);
  const { status, step } = flow;

  useErrorToast(status.error, status.errorUpdatedAt, t('Failed to fetch two-factor sign-in status'));

  const enabled = status.data?.enabled === true;
  const badge = status.isSuccess ? (
    <Badge label={enabled ? t('On') : t('Off')} tone={enabled ? 'success' : 'neutral'} role="status" testID="twofactor-state" />
  ) : null;

  let body;
  if (step.kind === 'codes') {
    body = <BackupCodes codes={step.codes} onDone={flow.finish} />;
  } else if (step.kind === 'setup') {
    body = (
      <View style={styles.section} testID="twofactor-setup">
        <Text>{t('1. Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy...).')}</Text>
        <QrCode value={step.setup.otpauth_url} accessibilityLabel={t('QR code for your authenticator app')} testID="twofactor-qr" />
        <Text variant="muted">{t('Or type this key into the app:')}</Text>
        <Text selectable style={styles.secret} testID="twofactor-secret" aria-label={t('Setup key {{key}}', { key: step.setup.secret })}>
          {groupSecret(step.setup.secret)}
        </Text>
        <Text>{t('2. Enter the 6-digit code the app shows.')}</Text>
        <TextField
          label={t('Code')}
          required
          value={flow.code}
          onChangeText={flow.changeCode}
          error={flow.codeError}
          keyboardType="number-pad"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={7}
          onSubmitEditing={flow.confirm}
          containerStyle={styles.field}
          testID="twofactor-code"
        />
        <View style={styles.row}>
          <Button title={t('Turn on')} loading={flow.confirming} onPress={flow.confirm} testID="twofactor-enable" />
          <Button title={t('Cancel')} variant="outline" onPress={flow.cancel} testID="twofactor-cancel" />
        </View>
      </View>
    );
  } else if (status.isPending) {
    body = <Text variant="muted">{t('Loading...')}</Text>;
  } else if (status.isError) {
    body = <Text variant="muted">{t('Two-factor sign-in could not be read. Try again later.')}</Text>;
  } else if (enabled) {
    const left = status.data?.backup_codes_left ?? 0;
    body = (
      <View style={styles.section}>
        <Text>{t('Signing in takes your password and a code from your authenticator app.')}</Text>
        <Text variant="muted" testID="twofactor-backup-left">
          {t('Backup codes left: {{count}}', { count: left })}
        </Text>
        <View style={styles.row}>
          <Button title={t('Turn off')} variant="outline" onPress={() => setDisableOpen(true)} testID="twofactor-disable-open" />
        </View>
      </View>
    );
  } else {
    body = (
      <View style={styles.section}>
        <Text>{t('Protect your account with a second step at sign-in: a code from an authenticator app on your phone.')}</Text>
        <View style={styles.row}>
          <Button
            title={t('Set up two-factor sign-in')}
            icon="shield"
            loading={flow.starting}
            onPress={flow.start}
            testID="twofactor-setup-start"
          />
        </View>
      </View>
    );
  }

  return (
    <Card title={t('Two-factor sign-in')} action={badge} testID="twofactor-card">
      {body}
      <DisableTwoFactorModal visible={disableOpen} onClose={() => setDisableOpen(false)} />
    </Card>
  );
}

const themed: ThemedStyle<{ section: ViewStyle; row: ViewStyle; secret: TextStyle; field: ViewStyle }> = ({ colors, spacing, fontSize }) => ({
  section: { gap: spacing.md },
  row: { flexDirection: 'row', flexWrap: 'wrap', gap: spacing.sm },
  secret: { fontSize: fontSize.md, fontWeight: '600', letterSpacing: 1, color: colors.text },
  field: { maxWidth: 240 },
});
