import { t } from '../i18n';
import { Button } from './Button';
import { Modal } from './Modal';
import { Text } from './Text';

export interface ConfirmDialogProps {
  visible: boolean;
  title: string;
  message: string;
  confirmLabel?: string;
  cancelLabel?: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  testID?: string;
}

/** A yes/no question in a modal (works the same on the web and on Android/iOS). */
export function ConfirmDialog({
  visible,
  title,
  message,
  confirmLabel = t('Delete'),
  cancelLabel = t('Cancel'),
  busy,
  onConfirm,
  onCancel,
  testID,
}: ConfirmDialogProps) {
  return (
    <Modal
      visible={visible}
      onClose={onCancel}
      title={title}
      testID={testID}
      maxWidth={420}
      footer={
        <>
          <Button title={cancelLabel} variant="outline" onPress={onCancel} testID={testID ? `${testID}-cancel` : undefined} />
          <Button
            title={confirmLabel}
            variant="danger"
            loading={busy}
            onPress={onConfirm}
            testID={testID ? `${testID}-confirm` : undefined}
          />
        </>
      }
    >
      <Text>{message}</Text>
    </Modal>
  );
}
