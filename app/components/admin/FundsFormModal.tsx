import { useFundsForm } from '../../hooks/useFundsForm';
import type { FundsKind } from '../../services/api/funds';
import type { AdminUserRow } from '../../services/api/types';
import { useTheme } from '../../theme';
import { formatMoney } from '../../utils/format';
import { FormModal } from '../FormModal';
import { Select } from '../Select';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { t } from '../../i18n';

export interface FundsFormModalProps {
  /** Deposit or withdraw; null: closed. */
  kind: FundsKind | null;
  user: AdminUserRow | null;
  onClose: () => void;
}

/** Admin: money in or out of one of a customer's accounts (amount, optional description). */
export function FundsFormModal({ kind, user, onClose }: FundsFormModalProps) {
  const { colors } = useTheme();
  const form = useFundsForm(kind ?? 'deposit', user?.id ?? null, onClose);
  const close = () => {
    form.reset();
    onClose();
  };
  const deposit = kind !== 'withdraw';
  const options = form.accounts.map((a) => ({
    label: `${a.account_number} · ${a.type_name} · ${formatMoney(a.balance, a.currency)}`,
    value: a.account_number,
  }));
  return (
    <FormModal
      visible={kind !== null && user !== null}
      onClose={close}
      title={deposit ? t('Deposit to {{name}}', { name: user?.name ?? '' }) : t('Withdraw from {{name}}', { name: user?.name ?? '' })}
      submitTitle={deposit ? t('Deposit') : t('Withdraw')}
      onSubmit={form.submit}
      submitting={form.submitting}
      testIDPrefix="funds"
    >
      {form.loadingAccounts ? (
        <Text variant="muted">{t('Loading accounts...')}</Text>
      ) : form.accounts.length === 0 ? (
        <Text variant="muted" testID="funds-no-accounts">
          {t('This customer has no open accounts.')}
        </Text>
      ) : (
        <Select<string>
          label={t('Account')}
          required
          options={options}
          value={form.chosen?.account_number ?? null}
          onChange={form.choose}
          error={form.errors.account}
          testID="funds-account"
        />
      )}
      <TextField
        label={t('Amount')}
        type="number"
        required
        value={form.amount}
        onChangeText={form.setAmount}
        error={form.errors.amount}
        placeholder="0.00"
        testID="funds-amount"
      />
      <TextField
        label={t('Description')}
        value={form.description}
        onChangeText={form.setDescription}
        error={form.errors.description}
        hint={deposit ? t('Optional; the ledger says "Deposit" otherwise') : t('Optional; the ledger says "Withdrawal" otherwise')}
        maxLength={255}
        onSubmitEditing={form.submit}
        testID="funds-description"
      />
      {form.errors.form ? (
        <Text role="alert" style={{ color: colors.danger }} testID="funds-error">
          {form.errors.form}
        </Text>
      ) : null}
    </FormModal>
  );
}
