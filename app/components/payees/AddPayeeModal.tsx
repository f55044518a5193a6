import { useState } from 'react';

import { useRecipientName } from '../../hooks/useRecipientName';
import { useSavePayee } from '../../hooks/useSavePayee';
import { useTheme } from '../../theme';
import { PAYEE_NICKNAME_MAX } from '../../utils/validation';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { RecipientName } from './RecipientName';
import { t } from '../../i18n';

export interface AddPayeeModalProps {
  visible: boolean;
  onClose: () => void;
}

/**
 * Add payee: a nickname and an account number; the holder's name appears
 * once the typed number is looked up. A refusal (the app's check, or the
 * server's sentence for an unknown account, one already saved, one's own
 * account) stays in the form; a saved payee closes it and the list refreshes.
 */
export function AddPayeeModal({ visible, onClose }: AddPayeeModalProps) {
  const { colors } = useTheme();
  const [nickname, setNickname] = useState('');
  const [accountNumber, setAccountNumber] = useState('');
  const [error, setError] = useState<string | null>(null);
  const holderName = useRecipientName(visible ? accountNumber : '');

  const close = () => {
    setNickname('');
    setAccountNumber('');
    setError(null);
    onClose();
  };
  const { save, saving } = useSavePayee({ onSaved: close, onRefused: setError });
  const submit = () => {
    setError(null);
    save({ nickname, accountNumber });
  };
  const edit = (set: (v: string) => void) => (v: string) => {
    set(v);
    setError(null);
  };

  return (
    <FormModal visible={visible} onClose={close} title={t('Add payee')} submitTitle={t('Save')} onSubmit={submit} submitting={saving} testIDPrefix="payee-add">
      <TextField
        label={t('Nickname')}
        required
        placeholder={t('e.g. Landlord')}
        value={nickname}
        onChangeText={edit(setNickname)}
        hint={t('At most {{count}} characters', { count: PAYEE_NICKNAME_MAX })}
        testID="payee-add-nickname"
      />
      <TextField
        label={t('Account number')}
        required
        value={accountNumber}
        onChangeText={edit(setAccountNumber)}
        autoCapitalize="characters"
        autoCorrect={false}
        onSubmitEditing={submit}
        testID="payee-add-account"
      />
      <RecipientName name={holderName} testID="payee-add-holder" />
      {error ? (
        <Text role="alert" style={{ color: colors.danger }} testID="payee-add-error">
          {error}
        </Text>
      ) : null}
    </FormModal>
  );
}
