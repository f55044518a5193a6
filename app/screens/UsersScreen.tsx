import { useMemo, useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { Badge, Button, DataTable, Screen, Text, TextField, type Column } from '../components';
import { DailyLimitModal } from '../components/admin/DailyLimitModal';
import { ActionMenu } from '../components/ActionMenu';
import { FundsFormModal } from '../components/admin/FundsFormModal';
import { useErrorToast } from '../hooks/useErrorToast';
import { fetchUsersError } from '../utils/fetchUsersError';
import { errorMessage } from '../services/api/client';
import type { FundsKind } from '../services/api/funds';
import { useAdminUsers, useSetUserStatus } from '../services/api/admin';
import type { AdminUserRow } from '../services/api/types';
import { toast } from '../state/toast';
import { spacing, useTheme } from '../theme';
import { datePart } from '../utils/format';
import { t } from '../i18n';

/** Rows whose name or phone contains the query (case-insensitive; phone digits also match without spaces or dashes). */
export function filterUsers(rows: AdminUserRow[], query: string): AdminUserRow[] {
  const q = query.trim().toLowerCase();
  if (!q) return rows;
  // A phone-like query also matches ignoring spaces, dashes and brackets.
  const digits = /^[\d\s()+-]+$/.test(q) ? q.replace(/\D/g, '') : '';
  return rows.filter((r) => {
    const name = (r.name ?? '').toLowerCase();
    const phone = (r.phone ?? '').toLowerCase();
    return name.includes(q) || phone.includes(q) || (digits !== '' && phone.replace(/\D/g, '').includes(digits));
  });
}

/** User Management (Admin only; the navigator's guard keeps others out). */
export default function UsersScreen() {
  const { colors } = useTheme();
  const users = useAdminUsers();
  const setStatus = useSetUserStatus();
  const [query, setQuery] = useState('');
  const [busyId, setBusyId] = useState<number | null>(null);
  const [limitFor, setLimitFor] = useState<AdminUserRow | null>(null);
  // Deposit / Withdraw (contract §6): the customer whose account it is.
  const [funds, setFunds] = useState<{ kind: FundsKind; user: AdminUserRow } | null>(null);

  useErrorToast(users.error, users.errorUpdatedAt, fetchUsersError);

  const rows = useMemo(() => filterUsers(Array.isArray(users.data) ? users.data : [], query), [users.data, query]);

  const toggle = (row: AdminUserRow) => {
    const isActive = !row.status;
    setBusyId(row.id);
    setStatus.mutate(
      { id: row.id, isActive },
      {
        onSuccess: () => {
          toast.success(isActive ? t('User activated successfully') : t('User deactivated successfully'));
        },
        onError: (err) => {
          toast.error(errorMessage(err, t('Failed to update user status')));
        },
        onSettled: () => setBusyId(null),
      },
    );
  };

  const columns: Column<AdminUserRow>[] = [
    { key: 'id', title: t('ID'), flex: 0.4 },
    { key: 'name', title: t('Name'), flex: 1.4 },
    { key: 'phone', title: t('Phone'), flex: 1.1, minWidth: 124 },
    { key: 'role', title: t('Role'), flex: 0.7 },
    {
      key: 'status',
      title: t('Status'),
      flex: 0.9,
      render: (row) => (
        <Badge
          label={row.status ? t('Active') : t('Inactive')}
          tone={row.status ? 'success' : 'neutral'}
          testID={`user-status-${row.id}`}
        />
      ),
    },
    { key: 'created', title: t('Created'), flex: 1, minWidth: 112, render: (row) => datePart(row.created) },
    {
      key: 'limit',
      title: t('Limit'),
      flex: 1,
      minWidth: 128, // "Daily limit" (and "Límite diario") on one line at 1280 px
      render: (row) =>
        row.role === 'User' ? (
          <Button title={t('Daily limit')} variant="outline" size="sm" testID={`user-limit-${row.id}`} accessibilityLabel={t('Daily limit of {{name}}', { name: row.name })} onPress={() => setLimitFor(row)} />
        ) : null,
    },
    {
      key: 'action',
      title: t('Action'),
      flex: 1.1,
      minWidth: 128,
      render: (row) => (
        <Button
          title={row.status ? t('Deactivate') : t('Activate')}
          variant={row.status ? 'outline' : 'primary'}
          size="sm"
          testID={`user-toggle-${row.id}`}
          accessibilityLabel={row.status ? t('Deactivate {{name}}', { name: row.name }) : t('Activate {{name}}', { name: row.name })}
          loading={busyId === row.id}
          disabled={busyId !== null && busyId !== row.id}
          onPress={() => toggle(row)}
        />
      ),
    },
    {
      key: 'money',
      title: t('Money'),
      flex: 1.3,
      minWidth: 204, // "Deposit / Withdraw" with its icon on one line at 1280 px
      // Only a customer's accounts take deposits.
      render: (row) =>
        row.role === 'User' ? (
          <ActionMenu
            icon="dollar-sign"
            label={t('Deposit / Withdraw')}
            accessibilityLabel={t('Deposit / Withdraw for {{name}}', { name: row.name })}
            testID={`user-funds-${row.id}`}
            items={[
              { label: t('Deposit'), testID: `user-deposit-${row.id}`, onPress: () => setFunds({ kind: 'deposit', user: row }) },
              { label: t('Withdraw'), testID: `user-withdraw-${row.id}`, onPress: () => setFunds({ kind: 'withdraw', user: row }) },
            ]}
          />
        ) : null,
    },
  ];

  return (
    <Screen title={t('User Management')} testID="screen-users">
      <View style={styles.toolbar}>
        <TextField
          type="search"
          testID="users-search"
          accessibilityLabel={t('Search users by name or phone')}
          placeholder={t('Search by name or phone')}
          value={query}
          onChangeText={setQuery}
          containerStyle={styles.search}
        />
        {users.isSuccess ? (
          <Text variant="muted" testID="users-count" style={{ color: colors.text }}>
            {t('{{shown}} of {{count}} users', { shown: rows.length, count: users.data?.length ?? 0 })}
          </Text>
        ) : null}
      </View>
      <DataTable
        testID="users-table"
        columns={columns}
        data={rows}
        keyExtractor={(row) => String(row.id)}
        loading={users.isPending}
        loadingText={t('Loading users...')}
        error={users.isError ? fetchUsersError(users.error) : null}
        emptyText={query.trim() ? t('No users match your search') : t('No users found')}
        stackBelow={720}
        stackedRole="list"
      />
      <DailyLimitModal user={limitFor} onClose={() => setLimitFor(null)} />
      {funds ? <FundsFormModal kind={funds.kind} user={funds.user} onClose={() => setFunds(null)} /> : null}
    </Screen>
  );
}

const styles = StyleSheet.create({
  toolbar: { flexDirection: 'row', flexWrap: 'wrap', alignItems: 'center', gap: spacing.md },
  search: { flexGrow: 1, flexBasis: 240, maxWidth: 420 },
});
