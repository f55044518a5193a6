import type { ReactNode } from 'react';

import { Button } from './Button';
import { Modal } from './Modal';
import { t } from '../i18n';

export interface FormModalProps {
  visible: boolean;
  onClose: () => void;
  title: string;
  /** The primary button's label, e.g. 'Transfer'. */
  submitTitle: string;
  onSubmit: () => void;
  /** Shows the primary button as busy. */
  submitting?: boolean;
  /** testIDs: `<prefix>-modal`, `<prefix>-cancel`, and submitTestID or `<prefix>-submit`. */
  testIDPrefix: string;
  submitTestID?: string;
  children: ReactNode;
}

/** A modal form with Cancel and a primary button: the one shape of every create/edit dialog. */
export function FormModal({ visible, onClose, title, submitTitle, onSubmit, submitting, testIDPrefix, submitTestID, children }: FormModalProps) {
  return (
    <Modal
      visible={visible}
      onClose={onClose}
      title={title}
      testID={`${testIDPrefix}-modal`}
      footer={
        <>
          <Button title={t('Cancel')} variant="outline" onPress={onClose} testID={`${testIDPrefix}-cancel`} />
          <Button title={submitTitle} loading={submitting} onPress={onSubmit} testID={submitTestID ?? `${testIDPrefix}-submit`} />
        </>
      }
    >
      {children}
    </Modal>
  );
}
