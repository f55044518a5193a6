import { useRef, useState } from 'react';
import { View, type ViewStyle } from 'react-native';

import { useRecipientName } from '../../hooks/useRecipientName';
import { useAccounts } from '../../services/api/accounts';
import { errorMessage } from '../../services/api/client';
import { usePayees } from '../../services/api/payees';
import { useCreateScheduledTransfer } from '../../services/api/scheduled';
import type { Payee, ScheduleFrequency } from '../../services/api/types';
import { toast } from '../../state/toast';
import { useThemed, type ThemedStyle } from '../../theme';
import { formatMoney, localDateTimeText } from '../../utils/format';
import { amountForApi, scheduleFormError, scheduleTimes, type ScheduleFormValues } from '../../utils/validation';
import { FormModal } from '../FormModal';
import { PayeePicker } from '../payees/PayeePicker';
import { RecipientName } from '../payees/RecipientName';
import { Select } from '../Select';
import { DateField } from '../DateField';
import { TextField } from '../TextField';
import { t } from '../../i18n';

export const FREQUENCIES = (): { label: string; value: ScheduleFrequency }[] =>
  [
  { label: t('Once'), value: 'once' },
  { label: t('Daily'), value: 'daily' },
  { label: t('Weekly'), value: 'weekly' },
  { label: t('Monthly'), value: 'monthly' },
];

/** The next full hour, as the first run's default. */
function nextHour(now = new Date()): string {
  const d = new Date(now);
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 1);
  return localDateTimeText(d);
}

const empty = (): ScheduleFormValues & { payee: Payee | null } => ({
  from: null,
  to: '',
  amount: '',
  description: '',
  firstRun: nextHour(),
  frequency: 'once',
  until: '',
  payee: null,
});

/** The form of a new scheduled (or recurring) transfer: POST /api/user/scheduled-transfers. */
export function ScheduleTransferModal({ visible, onClose }: { visible: boolean; onClose: () => void }) {
  const themed = useThemed();
  const accounts = useAccounts();
  const payees = usePayees(visible);
  const create = useCreateScheduledTransfer();
  const [form, setForm] = useState(empty);
  const recipientName = useRecipientName(visible ? form.to : '', form.payee);
  const inFlight = useRef(false);

  const set = <K extends keyof typeof form>(key: K, value: (typeof form)[K]) => setForm((f) => ({ ...f, [key]: value }));
  const close = () => {
    setForm(empty());
    onClose();
  };

  const submit = () => {
    if (inFlight.current) return;
    const invalid = scheduleFormError(form);
    if (invalid || !form.from) {
      if (invalid) toast.error(invalid);
      return;
    }
    inFlight.current = true;
    create.mutate(
      {
        account_id: form.from,
        to_account_id: form.to.trim(),
        amount: amountForApi(form.amount),
        description: form.description.trim(),
        frequency: form.frequency,
        ...scheduleTimes(form),
      },
      {
        onSuccess: () => {
          toast.success(t('Transfer scheduled'));
          close();
        },
        onError: (err) => toast.error(errorMessage(err, t('Failed to schedule the transfer'))),
        onSettled: () => {
          inFlight.current = false;
        },
      },
    );
  };

  return (
    <FormModal visible={visible} onClose={close} title={t('Schedule a transfer')} submitTitle={t('Schedule')} onSubmit={submit} submitting={create.isPending} testIDPrefix="schedule">
      <Select<string>
        label={t('From Account')}
        required
        placeholder={t('Select an account')}
        options={(accounts.data ?? []).map((a) => ({ label: `${a.account_number} (${formatMoney(a.balance, a.currency)})`, value: a.account_number }))}
        value={form.from}
        onChange={(v) => set('from', v)}
        testID="schedule-from"
      />
      <PayeePicker
        payees={payees.data}
        value={form.payee?.id ?? null}
        onPick={(p) => setForm((f) => ({ ...f, payee: p, to: p ? p.account_number : f.to }))}
        testID="schedule-payee"
      />
      <View style={themed($stack)}>
        <TextField
          label={t('Recipient Account Number')}
          required
          value={form.to}
          onChangeText={(v) => setForm((f) => ({ ...f, to: v, payee: f.payee && f.payee.account_number === v.trim() ? f.payee : null }))}
          autoCapitalize="characters"
          autoCorrect={false}
          testID="schedule-to"
        />
        <RecipientName name={recipientName} testID="schedule-recipient-name" />
      </View>
      <TextField label={t('Amount')} required type="number" placeholder="0.00" value={form.amount} onChangeText={(v) => set('amount', v)} testID="schedule-amount" />
      <TextField label={t('Description (optional)')} value={form.description} onChangeText={(v) => set('description', v)} maxLength={255} testID="schedule-description" />
      <DateField
        mode="datetime"
        label={t('First run')}
        required
        placeholder={t('YYYY-MM-DD HH:MM')}
        hint={t('Your local time, e.g. 2026-12-01 09:30')}
        value={form.firstRun}
        onChangeText={(v) => set('firstRun', v)}
        testID="schedule-first-run"
      />
      <Select<ScheduleFrequency>
        label={t('Frequency')}
        required
        options={FREQUENCIES()}
        value={form.frequency}
        onChange={(v) => set('frequency', v ?? 'once')}
        testID="schedule-frequency"
      />
      {form.frequency !== 'once' ? (
        <DateField
          mode="date"
          label={t('End date (optional)')}
          placeholder={t('YYYY-MM-DD')}
          hint={t('The last day a run may happen; empty: until you cancel it')}
          value={form.until}
          onChangeText={(v) => set('until', v)}
          testID="schedule-until"
        />
      ) : null}
    </FormModal>
  );
}

const $stack: ThemedStyle<ViewStyle> = ({ spacing }) => ({ gap: spacing.xs });
