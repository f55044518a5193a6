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
import { currencyOf, datePart, formatMoney } from '../utils/format';
import { amountForApi, moneyRequestFormError } from '../utils/validation';
import { t } from '../i18n';
import { texts } from '../i18n/texts';

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
  useErrorToast(requests.error, requests.errorUpdatedAt, texts.moneyRequestsFailed());
  useErrorToast(accounts.error, accounts.errorUpdatedAt, texts.accountsFailed());

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
        amount: amountForApi(form.amount),
        description: form.description.trim(),
      },
      {
        onSuccess: () => {
          toast.success(t('Money request created successfully!'));
          close();
        },
        onError: () => toast.error(t('Failed to create money request')),
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
      onSuccess: () => toast.success(texts.requestAnswered(action)),
      onError: () => toast.error(texts.requestAnswerFailed(action)),
      onSettled: () => setBusyId(null),
    });
  };

  const columns: Column<MoneyRequest>[] = [
    { key: 'date', title: t('Date'), render: (r) => datePart(r.RequesteAt) },
    { key: 'amount', title: t('Amount'), render: (r) => formatMoney(r.Amount, currencyOf(accounts.data, r.requester_id, r.recipient_id)) },
    { key: 'from', title: t('From Account'), render: (r) => r.requester_id },
    { key: 'to', title: t('To Account'), render: (r) => r.recipient_id },
    { key: 'status', title: t('Status'), render: (r) => <StatusBadge status={r.Status} testID={`request-status-${r.ID}`} /> },
    {
      key: 'actions',
      title: t('Actions'),
      flex: 1.4,
      render: (r) =>
        canAnswerRequest(r) ? (
          <ActionMenu
            accessibilityLabel={t('Actions for request {{id}}', { id: r.ID })}
            testID={`request-menu-${r.ID}`}
            disabled={busyId !== null}
            items={[
              { label: t('Accept'), testID: `request-accept-${r.ID}`, onPress: () => answer(r, 'accept') },
              { label: t('Decline'), testID: `request-decline-${r.ID}`, destructive: true, onPress: () => answer(r, 'decline') },
            ]}
          />
        ) : null,
    },
  ];

  return (
    <Screen
      title={t('Money Requests')}
      testID="screen-money-request"
      actions={<Button title={t('New Money Request')} icon="plus" testID="request-new" onPress={() => setOpen(true)} />}
    >
      <Card title={t('Request History')}>
        <DataTable
          testID="request-history"
          columns={columns}
          data={requests.isError ? [] : requests.data}
          keyExtractor={(r) => String(r.ID)}
          loading={requests.isPending}
          loadingText={t('Loading requests...')}
          error={requests.isError ? texts.moneyRequestsFailed() : null}
          emptyText={t('No money requests available.')}
        />
      </Card>

      <FormModal visible={open} onClose={close} title={t('New Money Request')} submitTitle={t('Create Request')} onSubmit={submit} submitting={create.isPending} testIDPrefix="request">
        <Select<string>
          label={t('From Account')}
          required
          placeholder={t('Select an account')}
          options={(accounts.data ?? []).map((a) => ({ label: a.account_number, value: a.account_number }))}
          value={form.from}
          onChange={(v) => set('from', v)}
          testID="request-from"
        />
        <PayeePicker payees={payees.data} value={form.payee?.id ?? null} onPick={pickPayee} testID="request-payee" />
        <TextField
          label={t('To Account Number')}
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
          label={t('Amount')}
          required
          type="number"
          placeholder="0.00"
          value={form.amount}
          onChangeText={(v) => set('amount', v)}
          testID="request-amount"
        />
        <TextField
          label={t('Description (optional)')}
          value={form.description}
          onChangeText={(v) => set('description', v)}
          testID="request-description"
        />
      </FormModal>
    </Screen>
  );
}

