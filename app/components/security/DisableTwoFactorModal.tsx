import { useDisableTwoFactorForm } from '../../hooks/useTwoFactorFlow';
import { useTheme } from '../../theme';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { t } from '../../i18n';

export interface DisableTwoFactorModalProps {
  visible: boolean;
  onClose: () => void;
}

/** Turn two-factor sign-in off: the password and a current code (or a backup code). */
export function DisableTwoFactorModal({ visible, onClose }: DisableTwoFactorModalProps) {
  const { colors } = useTheme();
  const form = useDisableTwoFactorForm(onClose);
  const close = () => {
    form.reset();
    onClose();
  };
  return (
    <FormModal
      visible={visible}
      onClose={close}
      title={t('Turn off two-factor sign-in')}
      submitTitle={t('Turn off')}
      onSubmit={form.submit}
      submitting={form.submitting}
      testIDPrefix="twofactor-disable"
    >
      <Text>{t('Signing in will then take only your password.')}</Text>
      <TextField
        label={t('Password')}
        type="password"
        required
        value={form.password}
        onChangeText={form.setPassword}
        error={form.errors.password}
        autoComplete="current-password"
        testID="twofactor-disable-password"
      />
      <TextField
        label={t('Code')}
        required
        value={form.code}
        onChangeText={form.setCode}
        error={form.errors.code}
        hint={t('The 6-digit code from your authenticator app, or a backup code')}
        autoCapitalize="none"
        autoCorrect={false}
        autoComplete="one-time-code"
        onSubmitEditing={form.submit}
        testID="twofactor-disable-code"
      />
      {form.errors.form ? (
        <Text role="alert" style={{ color: colors.danger }} testID="twofactor-disable-error">
          {form.errors.form}
        </Text>
      ) : null}
    </FormModal>
  );
}
