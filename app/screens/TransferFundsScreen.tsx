import { useRef, useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { Button, Card, DataTable, FormModal, Screen, Select, Text, TextField, type Column } from '../components';
import { TransactionTypeBadge } from '../components/StatusBadge';
import { useDebouncedValue } from '../hooks/useDebouncedValue';
import { useErrorToast } from '../hooks/useErrorToast';
import { useAccountLookup, useAccounts } from '../services/api/accounts';
import { errorMessage } from '../services/api/client';
import { newIdempotencyKey, useTransactionHistory, useTransfer } from '../services/api/transactions';
import type { Transaction, TransferPayload } from '../services/api/types';
import { useSession } from '../state/session';
import { toast } from '../state/toast';
import { spacing, useTheme } from '../theme';
import { currencyOf, datePart, formatMoney } from '../utils/format';
import { transferFormError } from '../utils/validation';

/** Spec §9: the recipient lookup waits 1000 ms after typing, for 6+ characters. */
export const LOOKUP_DELAY_MS = 1000;

/**
 * The recipient's full name, looked up 1000 ms after typing stops (the
 * lookup hook runs only for 6+ characters). A name is shown only for the
 * number in the field now; any failure of the lookup (404, 429, no network)
 * says 'Account not found'.
 */
function useRecipientName(accountNumber: string): string {
  const typed = accountNumber.trim();
  const settled = useDebouncedValue(typed, LOOKUP_DELAY_MS);
  const lookup = useAccountLookup(settled);
  useErrorToast(lookup.error, lookup.errorUpdatedAt, 'Account not found');
  return settled === typed && lookup.data ? lookup.data.full_name ?? '' : '';
}

interface TransferForm {
  from: string | null;
  amount: string;
  to: string;
  note: string;
}

const EMPTY: TransferForm = { from: null, amount: '', to: '', note: '' };

/** Transfer Funds (spec §2): the transfer modal and the transaction history below. */
export default function TransferFundsScreen() {
  const { colors } = useTheme();
  const user = useSession((s) => s.user);
  const accounts = useAccounts();
  const history = useTransactionHistory();
  const transfer = useTransfer();
  useErrorToast(accounts.error, accounts.errorUpdatedAt, 'Failed to fetch accounts');
  useErrorToast(history.error, history.errorUpdatedAt, 'Failed to fetch transactions');

  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<TransferForm>(EMPTY);
  const recipientName = useRecipientName(open ? form.to : '');
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

  const submit = () => {
    if (inFlight.current) return;
    const invalid = transferFormError(form);
    if (invalid) {
      toast.error(invalid);
      return;
    }
    if (!user || !form.from) {
      toast.error('User not found. Please login again.');
      return;
    }
    const payload: TransferPayload = {
      account_id: form.from,
      to_account_id: form.to.trim(),
      amount: form.amount.trim(),
      description: form.note.trim(),
    };
    const body = JSON.stringify(payload);
    if (!idem.current || idem.current.body !== body) idem.current = { key: newIdempotencyKey(), body };
    inFlight.current = true;
    transfer.mutate(
      { payload, idempotencyKey: idem.current.key },
      {
        onSuccess: () => {
          toast.success('Transfer successful!');
          close();
        },
        onError: (err) => toast.error(errorMessage(err, 'Transfer failed')),
        onSettled: () => {
          inFlight.current = false;
        },
      },
    );
  };

  const columns: Column<Transaction>[] = [
    { key: 'date', title: 'Date', render: (t) => datePart(t.transaction_date) },
    { key: 'type', title: 'Type', render: (t) => <TransactionTypeBadge type={t.transaction_type} /> },
    { key: 'amount', title: 'Amount', render: (t) => formatMoney(t.amount, currencyOf(accounts.data, t.account_id, t.to_account_id)) },
    { key: 'from', title: 'From Account', render: (t) => t.account_id },
    { key: 'to', title: 'To Account', render: (t) => t.to_account_id },
    { key: 'description', title: 'Description', flex: 1.5, render: (t) => t.description ?? '' },
  ];

  const accountOptions = (accounts.data ?? []).map((a) => ({
    label: `${a.account_number} (${formatMoney(a.balance, a.currency)})`,
    value: a.account_number,
  }));

  return (
    <Screen
      title="Transfer Funds"
      testID="screen-transfer-funds"
      actions={<Button title="Transfer Funds" icon="send" testID="transfer-open" onPress={openForm} />}
    >
      <Card
        title="Transaction History"
        action={
          <Button
            title="Refresh"
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
          loadingText="Loading transactions..."
          error={history.isError ? 'Failed to load transactions' : null}
          emptyText="No recent transactions available."
        />
      </Card>

      <FormModal visible={open} onClose={close} title="Transfer Funds" submitTitle="Transfer" onSubmit={submit} submitting={transfer.isPending} testIDPrefix="transfer">
        <Select<string>
          label="From Account"
          required
          placeholder="Select an account"
          options={accountOptions}
          value={form.from}
          onChange={(v) => set('from', v)}
          testID="transfer-from"
        />
        <TextField
          label="Amount"
          required
          type="number"
          placeholder="0.00"
          value={form.amount}
          onChangeText={(v) => set('amount', v)}
          testID="transfer-amount"
        />
        <View style={styles.recipient}>
          <TextField
            label="Recipient Account Number"
            required
            value={form.to}
            onChangeText={(v) => set('to', v)}
            autoCapitalize="characters"
            autoCorrect={false}
            testID="transfer-to"
          />
          {recipientName ? (
            <Text variant="muted" testID="transfer-recipient-name" accessibilityLiveRegion="polite" style={{ color: colors.success }}>
              {recipientName}
            </Text>
          ) : null}
        </View>
        <TextField
          label="Note (optional)"
          value={form.note}
          onChangeText={(v) => set('note', v)}
          testID="transfer-note"
        />
      </FormModal>
    </Screen>
  );
}

const styles = StyleSheet.create({
  recipient: { gap: spacing.xs },
});
