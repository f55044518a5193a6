import { View, type ViewStyle } from 'react-native';

import { type ThemedStyle, useThemedStyles } from '../../theme';
import { CODE_OR_BACKUP_MESSAGE } from '../../utils/twoFactor';
import { Button } from '../Button';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { t } from '../../i18n';

export interface TwoFactorStepProps {
  code: string;
  onChangeCode: (code: string) => void;
  error: string | null;
  verifying: boolean;
  onSubmit: () => void;
  onBack: () => void;
}

/** The second sign-in step on /auth: the code from the authenticator app, or a backup code. */
export function TwoFactorStep({ code, onChangeCode, error, verifying, onSubmit, onBack }: TwoFactorStepProps) {
  const styles = useThemedStyles(themed);
  return (
    <View style={styles.form} testID="twofactor-form">
      <Text>{`${t(CODE_OR_BACKUP_MESSAGE)}.`}</Text>
      <TextField
        label={t('Code')}
        testID="login-code"
        value={code}
        onChangeText={onChangeCode}
        error={error}
        autoCapitalize="none"
        autoCorrect={false}
        autoComplete="one-time-code"
        autoFocus
        required
        returnKeyType="go"
        onSubmitEditing={onSubmit}
      />
      <Button title={verifying ? t('Verifying...') : t('Verify')} testID="login-verify" onPress={onSubmit} loading={verifying} fullWidth />
      <Button title={t('Back')} variant="link" testID="login-back" accessibilityRole="link" onPress={onBack} style={styles.back} />
    </View>
  );
}

const themed: ThemedStyle<{ form: ViewStyle; back: ViewStyle }> = ({ spacing }) => ({
  form: { gap: spacing.md },
  back: { alignSelf: 'center' },
});
