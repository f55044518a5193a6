import { useRef, useState } from 'react';
import { View, type ViewStyle } from 'react-native';

import { Button, Card, DataTable, FormModal, Screen, Select, Tabs, TextField } from '../components';
import { PayeePicker } from '../components/payees/PayeePicker';
import { PayeesPanel } from '../components/payees/PayeesPanel';
import { RecipientName } from '../components/payees/RecipientName';
import { SavePayeeForm } from '../components/payees/SavePayeeForm';
import { DailyLimitLine } from '../components/transfers/DailyLimitLine';
import { ScheduledPanel } from '../components/transfers/ScheduledPanel';
import { useErrorToast } from '../hooks/useErrorToast';
import { useRecipientName } from '../hooks/useRecipientName';
import { useAccounts } from '../services/api/accounts';
import { errorMessage } from '../services/api/client';
import { usePayees } from '../services/api/payees';
import { newIdempotencyKey, useTransactionHistory, useTransfer } from '../services/api/transactions';
import type { Payee, TransferPayload } from '../services/api/types';
import { useSession } from '../state/session';
import { toast } from '../state/toast';
import { useThemed, type ThemedStyle } from '../theme';
import { formatMoney } from '../utils/format';
import { amountForApi, transferFormError } from '../utils/validation';
import { t } from '../i18n';
import { HISTORY_COLUMNS, transactionColumns } from '../components/transactionColumns';
import { texts } from '../i18n/texts';

export { LOOKUP_DELAY_MS } from '../hooks/useRecipientName';

interface TransferForm {
  from: string | null;
  amount: string;
  to: string;
  note: string;
  /** The saved payee the number came from (null: typed). */
  payee: Payee | null;
}

const EMPTY: TransferForm = { from: null, amount: '', to: '', note: '', payee: null };

type TransferTab = 'history' | 'payees' | 'scheduled';

const TABS = (): { key: TransferTab; label: string; testID: string }[] =>
  [
  { key: 'history', label: t('History'), testID: 'transfer-tab-history' },
  { key: 'payees', label: t('Payees'), testID: 'transfer-tab-payees' },
  { key: 'scheduled', label: t('Scheduled'), testID: 'transfer-tab-scheduled' },
];

/**
 * Transfer Funds (spec §2): the transfer modal, and below it three tabs: the
 * transaction history, the saved payees, the scheduled transfers.
 */
export default function TransferFundsScreen() {
  const themed = useThemed();
  const [tab, setTab] = useState<TransferTab>('history');
  const user = useSession((s) => s.user);
  const accounts = useAccounts();
  const history = useTransactionHistory();
  const transfer = useTransfer();
  useErrorToast(accounts.error, accounts.errorUpdatedAt, texts.accountsFailed());
  useErrorToast(history.error, history.errorUpdatedAt, texts.transactionsFailed());

  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<TransferForm>(EMPTY);
  const payees = usePayees(open);
  const recipientName = useRecipientName(open ? form.to : '', form.payee);
  const fromCurrency = accounts.data?.find((a) => a.account_number === form.from)?.currency;
  // One Idempotency-Key per form: a double click or a retry of the same
  // transfer reuses it; a changed transfer or a new form gets a new one.
  const idem = useRef<{ key: string; body: string } | null>(null);
  const inFlight = useRef(false);

  const openForm = () => {
    setForm(EMPTY);
    idem.current = null;
    setOpen(true);
  };
  const close = () => {
    setOpen(false);
    setForm(EMPTY);
    idem.current = null;
  };
  const set = <K extends keyof TransferForm>(key: K, value: TransferForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  // A picked payee fills the number; editing the number away from it forgets the payee.
  const pickPayee = (payee: Payee | null) => setForm((f) => ({ ...f, payee, to: payee ? payee.account_number : f.to }));
  const typeRecipient = (to: string) =>
    setForm((f) => ({ ...f, to, payee: f.payee && f.payee.account_number === to.trim() ? f.payee : null }));

  const submit = () => {
    if (inFlight.current) return;
    const invalid = transferFormError(form);
    if (invalid) {
      toast.error(invalid);
      return;
    }
    if (!user || !form.from) {
      toast.error(t('User not found. Please login again.'));
      return;
    }
    const payload: TransferPayload = {
      account_id: form.from,
      to_account_id: form.to.trim(),
      amount: amountForApi(form.amount),
      description: form.note.trim(),
    };
    const body = JSON.stringify(payload);
    if (!idem.current || idem.current.body !== body) idem.current = { key: newIdempotencyKey(), body };
    inFlight.current = true;
    transfer.mutate(
      { payload, idempotencyKey: idem.current.key },
      {
        onSuccess: () => {
          toast.success(t('Transfer successful!'));
          close();
        },
        onError: (err) => toast.error(errorMessage(err, t('Transfer failed'))),
        onSettled: () => {
          inFlight.current = false;
        },
      },
    );
  };

  const columns = transactionColumns(accounts.data, HISTORY_COLUMNS);

  const accountOptions = (accounts.data ?? []).map((a) => ({
    label: `${a.account_number} (${formatMoney(a.balance, a.currency)})`,
    value: a.account_number,
  }));

  return (
    <Screen
      title={t('Transfer Funds')}
      testID="screen-transfer-funds"
      actions={<Button title={t('Transfer Funds')} icon="send" testID="transfer-open" onPress={openForm} />}
    >
      <Tabs<TransferTab> tabs={TABS()} value={tab} onChange={setTab} accessibilityLabel={t('Transfer Funds sections')} />
      {tab === 'payees' ? <PayeesPanel /> : null}
      {tab === 'scheduled' ? <ScheduledPanel /> : null}
      {tab === 'history' ? (
        <Card
          title={t('Transaction History')}
          action={
            <Button
              title={t('Refresh')}
              variant="link"
              testID="transfer-history-refresh"
              accessibilityRole="link"
              onPress={() => void history.refetch()}
            />
          }
        >
          <DataTable
            testID="transfer-history"
            columns={columns}
            data={history.isError ? [] : history.data?.data}
            keyExtractor={(t) => String(t.id)}
            loading={history.isPending}
            loadingText={t('Loading transactions...')}
            error={history.isError ? texts.transactionsLoadFailed() : null}
            emptyText={t('No recent transactions available.')}
          />
        </Card>
      ) : null}

      <FormModal visible={open} onClose={close} title={t('Transfer Funds')} submitTitle={t('Transfer')} onSubmit={submit} submitting={transfer.isPending} testIDPrefix="transfer">
        <Select<string>
          label={t('From Account')}
          required
          placeholder={t('Select an account')}
          options={accountOptions}
          value={form.from}
          onChange={(v) => set('from', v)}
          testID="transfer-from"
        />
        <DailyLimitLine currency={fromCurrency} testID="transfer-limit-used" />
        <TextField
          label={t('Amount')}
          required
          type="number"
          placeholder="0.00"
          value={form.amount}
          onChangeText={(v) => set('amount', v)}
          testID="transfer-amount"
        />
        <PayeePicker payees={payees.data} value={form.payee?.id ?? null} onPick={pickPayee} testID="transfer-payee" />
        <View style={themed($recipient)}>
          <TextField
            label={t('Recipient Account Number')}
            required
            value={form.to}
            onChangeText={typeRecipient}
            autoCapitalize="characters"
            autoCorrect={false}
            testID="transfer-to"
          />
          <RecipientName name={recipientName} testID="transfer-recipient-name" />
        </View>
        {!form.payee && recipientName ? (
          <SavePayeeForm accountNumber={form.to} onSaved={pickPayee} testIDPrefix="transfer-save-payee" />
        ) : null}
        <TextField
          label={t('Note (optional)')}
          value={form.note}
          onChangeText={(v) => set('note', v)}
          testID="transfer-note"
        />
      </FormModal>
    </Screen>
  );
}

const $recipient: ThemedStyle<ViewStyle> = ({ spacing }) => ({ gap: spacing.xs });
