import { useEffect, useState } from 'react';

import { useAccounts } from '../../services/api/accounts';
import { errorMessage } from '../../services/api/client';
import { useDownloadStatement } from '../../services/api/statements';
import type { StatementFormat } from '../../services/api/types';
import { toast } from '../../state/toast';
import { thisMonth } from '../../utils/format';
import { statementFormError } from '../../utils/validation';
import { FormModal } from '../FormModal';
import { Select } from '../Select';
import { DateField } from '../DateField';
import { t } from '../../i18n';

const FORMATS = (): { label: string; value: StatementFormat }[] =>
  [
  { label: t('CSV (spreadsheet)'), value: 'csv' },
  { label: t('PDF'), value: 'pdf' },
];

interface StatementForm {
  account: string | null;
  from: string;
  to: string;
  format: StatementFormat;
}

const initial = (account: string | null): StatementForm => ({ account, ...thisMonth(), format: 'csv' });

/**
 * Download statement: an account, a period (this month by default) and a
 * format. The web saves the file; Android/iOS offer it in the share sheet.
 */
export function StatementModal({ visible, onClose, account }: { visible: boolean; onClose: () => void; account?: string }) {
  const accounts = useAccounts();
  const download = useDownloadStatement();
  const [form, setForm] = useState<StatementForm>(() => initial(account ?? null));
  const set = <K extends keyof StatementForm>(key: K, value: StatementForm[K]) => setForm((f) => ({ ...f, [key]: value }));

  // Each opening starts from the page's account (or the only one) and this month.
  useEffect(() => {
    if (visible) setForm(initial(account ?? (accounts.data?.length === 1 ? accounts.data[0].account_number : null)));
  }, [visible, account]);

  const submit = () => {
    if (download.isPending) return;
    const invalid = statementFormError(form);
    if (invalid || !form.account) {
      if (invalid) toast.error(invalid);
      return;
    }
    download.mutate(
      { account_id: form.account, from: form.from.trim(), to: form.to.trim(), format: form.format },
      {
        onSuccess: (saved) => {
          toast.success(t('Statement downloaded: {{file}}', { file: saved.filename }));
          onClose();
        },
        onError: (err) => toast.error(errorMessage(err, t('Failed to download the statement'))),
      },
    );
  };

  return (
    <FormModal visible={visible} onClose={onClose} title={t('Download statement')} submitTitle={t('Download')} onSubmit={submit} submitting={download.isPending} testIDPrefix="statement">
      <Select<string>
        label={t('Account')}
        required
        placeholder={t('Select an account')}
        options={(accounts.data ?? []).map((a) => ({ label: `${a.account_number} (${a.type_name})`, value: a.account_number }))}
        value={form.account}
        onChange={(v) => set('account', v)}
        testID="statement-account"
      />
      <DateField mode="date" label={t('From')} required placeholder={t('YYYY-MM-DD')} value={form.from} onChangeText={(v) => set('from', v)} testID="statement-from" />
      <DateField mode="date" label={t('To')} required placeholder={t('YYYY-MM-DD')} value={form.to} onChangeText={(v) => set('to', v)} testID="statement-to" />
      <Select<StatementFormat> label={t('Format')} required options={FORMATS()} value={form.format} onChange={(v) => set('format', v ?? 'csv')} testID="statement-format" />
    </FormModal>
  );
}
