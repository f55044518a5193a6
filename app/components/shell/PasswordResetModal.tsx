import { useState } from 'react';

import { usePasswordReset } from '../../services/api/auth';
import { errorMessage } from '../../services/api/client';
import { toast } from '../../state/toast';
import { Button } from '../Button';
import { Modal } from '../Modal';
import { TextField } from '../TextField';
import { t } from '../../i18n';

export interface PasswordResetModalProps {
  visible: boolean;
  onClose: () => void;
}

/** POST /api/user/password-reset {old_password, new_password}. */
export function PasswordResetModal({ visible, onClose }: PasswordResetModalProps) {
  const [oldPassword, setOldPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [errors, setErrors] = useState<{ old?: string; new?: string }>({});
  const reset = usePasswordReset();

  const close = () => {
    setOldPassword('');
    setNewPassword('');
    setErrors({});
    reset.reset();
    onClose();
  };

  const submit = () => {
    const next: { old?: string; new?: string } = {};
    if (!oldPassword) next.old = 'Old Password is required';
    if (!newPassword) next.new = 'New Password is required';
    setErrors(next);
    if (next.old || next.new || reset.isPending) return;
    reset.mutate(
      { old_password: oldPassword, new_password: newPassword },
      {
        onSuccess: () => {
          toast.success(t('Password reset successful!'));
          close();
        },
        onError: (err) => {
          toast.error(errorMessage(err, t('Failed to reset password')));
        },
      },
    );
  };

  return (
    <Modal
      visible={visible}
      onClose={close}
      title={t('Reset Password')}
      testID="password-reset-modal"
      footer={
        <>
          <Button title={t('Cancel')} variant="outline" onPress={close} testID="password-reset-cancel" />
          <Button
            title={reset.isPending ? t('Resetting...') : t('Reset Password')}
            onPress={submit}
            disabled={reset.isPending}
            testID="password-reset-submit"
          />
        </>
      }
    >
      <TextField
        label={t('Old Password')}
        type="password"
        required
        value={oldPassword}
        onChangeText={setOldPassword}
        error={errors.old}
        testID="password-reset-old"
        autoComplete="current-password"
      />
      <TextField
        label={t('New Password')}
        type="password"
        required
        value={newPassword}
        onChangeText={setNewPassword}
        error={errors.new}
        testID="password-reset-new"
        autoComplete="new-password"
        onSubmitEditing={submit}
      />
    </Modal>
  );
}
