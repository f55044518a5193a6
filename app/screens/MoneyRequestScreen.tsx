import { useRef, useState } from 'react';

import { Button, Card, DataTable, FormModal, Screen, Select, TextField, type Column } from '../components';
import { ActionMenu } from '../components/ActionMenu';
import { PayeePicker } from '../components/payees/PayeePicker';
import { RecipientName } from '../components/payees/RecipientName';
import { SavePayeeForm } from '../components/payees/SavePayeeForm';
import { canAnswerRequest, StatusBadge } from '../components/StatusBadge';
import { useErrorToast } from '../hooks/useErrorToast';
import { useRecipientName } from '../hooks/useRecipientName';
import { useAccounts } from '../services/api/accounts';
import {
  useAcceptMoneyRequest,
  useCreateMoneyRequest,
  useDeclineMoneyRequest,
  useMoneyRequests,
} from '../services/api/moneyRequests';
import { usePayees } from '../services/api/payees';
import type { MoneyRequest, Payee } from '../services/api/types';
import { toast } from '../state/toast';
import { spacing } from '../theme';
import { currencyOf, datePart, formatMoney } from '../utils/format';
import { moneyRequestFormError } from '../utils/validation';

interface RequestForm {
  from: string | null;
  to: string;
  amount: string;
  description: string;
  /** The saved payee the number came from (null: typed). */
  payee: Payee | null;
}

const EMPTY: RequestForm = { from: null, to: '', amount: '', description: '', payee: null };

/** Money Requests (spec §2): create a request; answer incoming pending ones. */
export default function MoneyRequestScreen() {
  const accounts = useAccounts();
  const requests = useMoneyRequests();
  const create = useCreateMoneyRequest();
  const accept = useAcceptMoneyRequest();
  const decline = useDeclineMoneyRequest();
  useErrorToast(requests.error, requests.errorUpdatedAt, 'Failed to fetch money requests');
  useErrorToast(accounts.error, accounts.errorUpdatedAt, 'Failed to fetch accounts');

  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<RequestForm>(EMPTY);
  const [busyId, setBusyId] = useState<number | null>(null);
  const inFlight = useRef(false);
  const payees = usePayees(open);
  const recipientName = useRecipientName(open ? form.to : '', form.payee);

  const close = () => {
    setOpen(false);
    setForm(EMPTY);
  };
  const set = <K extends keyof RequestForm>(key: K, value: RequestForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  // A picked payee fills the number and names its holder; editing the number forgets the payee
  // (a typed number is looked up, and once named it can be saved as a payee).
  const pickPayee = (payee: Payee | null) => setForm((f) => ({ ...f, payee, to: payee ? payee.account_number : f.to }));
  const typeRecipient = (to: string) =>
    setForm((f) => ({ ...f, to, payee: f.payee && f.payee.account_number === to.trim() ? f.payee : null }));

  const submit = () => {
    if (inFlight.current) return;
    const invalid = moneyRequestFormError(form);
    if (invalid || !form.from) {
      if (invalid) toast.error(invalid);
      return;
    }
    inFlight.current = true;
    create.mutate(
      {
        requester_id: form.from,
        recipient_id: form.to.trim(),
        amount: form.amount.trim(),
        description: form.description.trim(),
      },
      {
        onSuccess: () => {
          toast.success('Money request created successfully!');
          close();
        },
        onError: () => toast.error('Failed to create money request'),
        onSettled: () => {
          inFlight.current = false;
        },
      },
    );
  };

  const answer = (r: MoneyRequest, action: 'accept' | 'decline') => {
    if (busyId !== null) return;
    setBusyId(r.ID);
    const mutation = action === 'accept' ? accept : decline;
    mutation.mutate(r.ID, {
      onSuccess: () => toast.success(action === 'accept' ? 'Money request accepted!' : 'Money request rejected!'),
      onError: () => toast.error(action === 'accept' ? 'Failed to accept request' : 'Failed to reject request'),
      onSettled: () => setBusyId(null),
    });
  };

  const columns: Column<MoneyRequest>[] = [
    { key: 'date', title: 'Date', render: (r) => datePart(r.RequesteAt) },
    { key: 'amount', title: 'Amount', render: (r) => formatMoney(r.Amount, currencyOf(accounts.data, r.requester_id, r.recipient_id)) },
    { key: 'from', title: 'From Account', render: (r) => r.requester_id },
    { key: 'to', title: 'To Account', render: (r) => r.recipient_id },
    { key: 'status', title: 'Status', render: (r) => <StatusBadge status={r.Status} testID={`request-status-${r.ID}`} /> },
    {
      key: 'actions',
      title: 'Actions',
      flex: 1.4,
      render: (r) =>
        canAnswerRequest(r) ? (
          <ActionMenu
            accessibilityLabel={`Actions for request ${r.ID}`}
            testID={`request-menu-${r.ID}`}
            disabled={busyId !== null}
            items={[
              { label: 'Accept', testID: `request-accept-${r.ID}`, onPress: () => answer(r, 'accept') },
              { label: 'Decline', testID: `request-decline-${r.ID}`, destructive: true, onPress: () => answer(r, 'decline') },
            ]}
          />
        ) : null,
    },
  ];

  return (
    <Screen
      title="Money Requests"
      testID="screen-money-request"
      actions={<Button title="New Money Request" icon="plus" testID="request-new" onPress={() => setOpen(true)} />}
    >
      <Card title="Request History">
        <DataTable
          testID="request-history"
          columns={columns}
          data={requests.isError ? [] : requests.data}
          keyExtractor={(r) => String(r.ID)}
          loading={requests.isPending}
          loadingText="Loading requests..."
          error={requests.isError ? 'Failed to fetch money requests' : null}
          emptyText="No money requests available."
        />
      </Card>

      <FormModal visible={open} onClose={close} title="New Money Request" submitTitle="Create Request" onSubmit={submit} submitting={create.isPending} testIDPrefix="request">
        <Select<string>
          label="From Account"
          required
          placeholder="Select an account"
          options={(accounts.data ?? []).map((a) => ({ label: a.account_number, value: a.account_number }))}
          value={form.from}
          onChange={(v) => set('from', v)}
          testID="request-from"
        />
        <PayeePicker payees={payees.data} value={form.payee?.id ?? null} onPick={pickPayee} testID="request-payee" />
        <TextField
          label="To Account Number"
          required
          value={form.to}
          onChangeText={typeRecipient}
          autoCapitalize="characters"
          autoCorrect={false}
          testID="request-to"
        />
        <RecipientName name={recipientName} testID="request-recipient-name" />
        {!form.payee && recipientName ? (
          <SavePayeeForm accountNumber={form.to} onSaved={pickPayee} testIDPrefix="request-save-payee" />
        ) : null}
        <TextField
          label="Amount"
          required
          type="number"
          placeholder="0.00"
          value={form.amount}
          onChangeText={(v) => set('amount', v)}
          testID="request-amount"
        />
        <TextField
          label="Description (optional)"
          value={form.description}
          onChangeText={(v) => set('description', v)}
          testID="request-description"
        />
      </FormModal>
    </Screen>
  );
}

