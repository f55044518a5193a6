import { useState } from 'react';
import type { TextStyle } from 'react-native';

import { reasonError } from '../../utils/validation';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { type ThemedStyle, useThemed } from '../../theme';
import { t } from '../../i18n';

export interface ReasonModalProps {
  visible: boolean;
  title: string;
  /** What will happen, above the field. */
  message: string;
  submitTitle: string;
  submitting: boolean;
  /** The server's refusal, shown in the dialog. */
  error: string | null;
  /** The longest reason the server takes. */
  maxLength: number;
  onSubmit: (reason: string) => void;
  onClose: () => void;
  testIDPrefix: string;
}

/**
 * A decision that needs a reason (a reversal, a rejection): the reason is
 * required before anything is sent; the server's refusal stays in the dialog.
 */
export function ReasonModal({ visible, title, message, submitTitle, submitting, error, maxLength, onSubmit, onClose, testIDPrefix }: ReasonModalProps) {
  const themed = useThemed();
  const [reason, setReason] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [wasVisible, setWasVisible] = useState(visible);
  // Each opening starts empty.
  if (visible !== wasVisible) {
    setWasVisible(visible);
    if (visible) {
      setReason('');
      setInvalid(null);
    }
  }
  const submit = () => {
    if (submitting) return;
    const problem = reasonError(reason, maxLength);
    setInvalid(problem);
    if (!problem) onSubmit(reason.trim());
  };
  return (
    <FormModal visible={visible} onClose={onClose} title={title} submitTitle={submitTitle} onSubmit={submit} submitting={submitting} testIDPrefix={testIDPrefix}>
      <Text>{message}</Text>
      <TextField
        label={t('Reason')}
        required
        value={reason}
        onChangeText={(v) => {
          setReason(v);
          setInvalid(null);
        }}
        error={invalid}
        maxLength={maxLength}
        multiline
        testID={`${testIDPrefix}-reason`}
      />
      {error ? (
        <Text role="alert" style={themed($error)} testID={`${testIDPrefix}-error`}>
          {error}
        </Text>
      ) : null}
    </FormModal>
  );
}

const $error: ThemedStyle<TextStyle> = ({ colors }) => ({ color: colors.danger });
