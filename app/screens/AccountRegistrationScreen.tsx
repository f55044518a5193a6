import { useNavigation, type NavigationProp } from '@react-navigation/native';
import { useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { Button, DataTable, IconButton, FormModal, Screen, Select, TextField, type Column } from '../components';
import { AccountInterest } from '../components/AccountInterest';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { useErrorToast } from '../hooks/useErrorToast';
import type { RootParamList } from '../navigators/routes';
import { useAccounts, useAccountTypes, useCreateAccount, useDeleteAccount, useUpdateAccount } from '../services/api/accounts';
import { errorMessage } from '../services/api/client';
import { useCustomerFunding } from '../services/api/config';
import type { Account } from '../services/api/types';
import { useSession } from '../state/session';
import { toast } from '../state/toast';
import { spacing, useTheme } from '../theme';
import { datePart, formatMoney } from '../utils/format';
import { amountForApi, validateAccountForm, type AccountFormErrors, type AccountFormValues } from '../utils/validation';
import { t } from '../i18n';
import { texts } from '../i18n/texts';

type FormState = AccountFormValues;

const EMPTY: FormState = { accountNumber: '', balance: '', typeId: null };

/** Account Registration (spec §2): the user's accounts, create, edit and delete. */
export default function AccountRegistrationScreen() {
  const { colors } = useTheme();
  const navigation = useNavigation<NavigationProp<RootParamList>>();
  const user = useSession((s) => s.user);
  const token = useSession((s) => s.token);
  const accounts = useAccounts();
  const types = useAccountTypes();
  const create = useCreateAccount();
  const update = useUpdateAccount();
  const remove = useDeleteAccount();
  // customer_funding off: accounts open at 0 and balances are not edited here (the bank deposits).
  const funding = useCustomerFunding();

  useErrorToast(accounts.error, accounts.errorUpdatedAt, texts.accountsFailed());
  useErrorToast(types.error, types.errorUpdatedAt, texts.accountTypesFailed());

  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState<Account | null>(null);
  const [form, setForm] = useState<FormState>(EMPTY);
  const [errors, setErrors] = useState<AccountFormErrors>({});
  const [toDelete, setToDelete] = useState<Account | null>(null);

  const saving = create.isPending || update.isPending;

  const close = () => {
    setOpen(false);
    setEditing(null);
    setForm(EMPTY);
    setErrors({});
  };

  const openCreate = () => {
    setEditing(null);
    setForm(EMPTY);
    setErrors({});
    setOpen(true);
  };

  const openEdit = (a: Account) => {
    setEditing(a);
    setForm({ accountNumber: a.account_number, balance: Number(a.balance).toFixed(2), typeId: a.account_type_id });
    setErrors({});
    setOpen(true);
  };

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
  };

  const submit = () => {
    if (saving) return;
    const found = validateAccountForm(form);
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    if (!user || !token) {
      close();
      toast.error(t('Please login to continue'));
      navigation.navigate('Auth');
      return;
    }
    const payload = {
      account_number: form.accountNumber.trim(),
      balance: form.balance.trim() === '' ? '0' : amountForApi(form.balance),
      account_type_id: form.typeId as number,
    };
    if (editing) {
      update.mutate(
        { id: editing.id, payload },
        {
          onSuccess: () => {
            toast.success(t('Account updated successfully'));
            close();
          },
          onError: (err) => toast.error(errorMessage(err, t('Failed to update account'))),
        },
      );
    } else {
      create.mutate(payload, {
        onSuccess: () => {
          toast.success(t('Account created successfully'));
          close();
        },
        onError: (err) => toast.error(errorMessage(err, t('Failed to create account'))),
      });
    }
  };

  const confirmDelete = () => {
    if (!toDelete || remove.isPending) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('Account deleted successfully')),
      onError: (err) => toast.error(errorMessage(err, t('Failed to delete account'))),
      onSettled: () => setToDelete(null),
    });
  };

  const columns: Column<Account>[] = [
    { key: 'name', title: t('Name'), render: (a) => a.name },
    { key: 'number', title: t('Account Number'), render: (a) => a.account_number },
    { key: 'type', title: t('Type'), render: (a) => a.type_name },
    { key: 'balance', title: t('Balance'), render: (a) => formatMoney(a.balance, a.currency) },
    { key: 'currency', title: t('Currency'), flex: 0.7, render: (a) => a.currency },
    {
      key: 'interest',
      title: t('Interest'),
      flex: 1.4,
      minWidth: 168,
      render: (a) => <AccountInterest account={a} typeRate={types.data?.find((k) => k.id === a.account_type_id)?.interest_rate} />,
    },
    { key: 'created', title: t('Created'), render: (a) => datePart(a.created_at) },
    {
      key: 'actions',
      title: t('Actions'),
      flex: 0.9,
      render: (a) => (
        <View style={styles.icons}>
          <IconButton
            icon="edit-2"
            accessibilityLabel={t('Edit account {{number}}', { number: a.account_number })}
            testID={`account-edit-${a.account_number}`}
            onPress={() => openEdit(a)}
          />
          <IconButton
            icon="trash-2"
            color={colors.danger}
            accessibilityLabel={t('Delete account {{number}}', { number: a.account_number })}
            testID={`account-delete-${a.account_number}`}
            onPress={() => setToDelete(a)}
          />
        </View>
      ),
    },
  ];

  const typeOptions = (types.data ?? []).map((t) => ({ label: `${t.type_name} (${t.currency})`, value: t.id }));

  return (
    <Screen
      title={t('Account Registration')}
      testID="screen-account-registration"
      actions={<Button title={t('Add New Account')} icon="plus" testID="account-add" onPress={openCreate} />}
    >
      <DataTable
        testID="accounts-table"
        columns={columns}
        data={accounts.isError ? [] : accounts.data}
        keyExtractor={(a) => String(a.id)}
        loading={accounts.isPending}
        loadingText={t('Loading accounts...')}
        error={accounts.isError ? texts.accountsFailed() : null}
        emptyText={t('No accounts yet.')}
      />

      <FormModal
        visible={open}
        onClose={close}
        title={editing ? t('Edit Account') : t('Create New Account')}
        submitTitle={editing ? t('Update Account') : t('Create Account')}
        onSubmit={submit}
        submitting={saving}
        testIDPrefix="account"
        submitTestID="account-save"
      >
        <TextField
          label={t('Account Number')}
          required
          value={form.accountNumber}
          onChangeText={(v) => set('accountNumber', v)}
          error={errors.accountNumber}
          autoCapitalize="characters"
          autoCorrect={false}
          testID="account-number"
        />
        {funding ? (
          <TextField
            label={t('Initial Balance')}
            type="number"
            value={form.balance}
            onChangeText={(v) => set('balance', v)}
            error={errors.balance}
            placeholder="0.00"
            testID="account-balance"
          />
        ) : null}
        <Select<number>
          label={t('Account Type')}
          required
          placeholder={t('Select an account type')}
          options={typeOptions}
          value={form.typeId}
          onChange={(v) => set('typeId', v)}
          error={errors.typeId}
          testID="account-type"
        />
      </FormModal>

      <ConfirmDialog
        visible={toDelete !== null}
        title={t('Delete Account')}
        message={t('Are you sure you want to delete this account?')}
        busy={remove.isPending}
        onConfirm={confirmDelete}
        onCancel={() => setToDelete(null)}
        testID="account-delete-dialog"
      />
    </Screen>
  );
}

const styles = StyleSheet.create({
  icons: { flexDirection: 'row', gap: spacing.xs },
});
