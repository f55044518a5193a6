import { useState } from 'react';
import { View, type ViewStyle } from 'react-native';

import { useSavePayee } from '../../hooks/useSavePayee';
import type { Payee } from '../../services/api/types';
import { toast } from '../../state/toast';
import { useThemed, type ThemedStyle } from '../../theme';
import { PAYEE_NICKNAME_MAX } from '../../utils/validation';
import { Button } from '../Button';
import { TextField } from '../TextField';
import { t } from '../../i18n';

export interface SavePayeeFormProps {
  /** The account number typed in the form. */
  accountNumber: string;
  onSaved: (payee: Payee) => void;
  /** testIDs: `<prefix>-nickname`, `<prefix>-submit`. */
  testIDPrefix: string;
}

/**
 * "Save as payee" for a typed account number: a nickname and a button.
 * The server's sentence explains a refusal (unknown account, already saved,
 * one's own account).
 */
export function SavePayeeForm({ accountNumber, onSaved, testIDPrefix }: SavePayeeFormProps) {
  const themed = useThemed();
  const [nickname, setNickname] = useState('');
  const { save: savePayee, saving } = useSavePayee({
    onSaved: (payee) => {
      setNickname('');
      onSaved(payee);
    },
    onRefused: (sentence) => toast.error(sentence),
  });
  const save = () => savePayee({ nickname, accountNumber });

  return (
    <View style={themed($row)}>
      <TextField
        label={t('Payee nickname')}
        placeholder={t('e.g. Landlord')}
        value={nickname}
        onChangeText={setNickname}
        maxLength={PAYEE_NICKNAME_MAX}
        containerStyle={themed($field)}
        testID={`${testIDPrefix}-nickname`}
        onSubmitEditing={save}
      />
      <Button title={t('Save as payee')} variant="outline" icon="user-plus" loading={saving} onPress={save} testID={`${testIDPrefix}-submit`} />
    </View>
  );
}

const $row: ThemedStyle<ViewStyle> = ({ spacing }) => ({ flexDirection: 'row', flexWrap: 'wrap', alignItems: 'flex-end', gap: spacing.sm });
const $field: ThemedStyle<ViewStyle> = () => ({ flexGrow: 1, flexBasis: 180 });
