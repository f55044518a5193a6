import { useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { Button, DataTable, Screen, Select, type Column, type SelectOption } from '../components';
import { useErrorToast } from '../hooks/useErrorToast';
import { fetchUsersError } from '../utils/fetchUsersError';
import { useAdminUsers, useAssignRole } from '../services/api/admin';
import type { AdminUserRow, Role } from '../services/api/types';
import { sessionStore, useSession } from '../state/session';
import { toast } from '../state/toast';
import { spacing } from '../theme';
import { t } from '../i18n';

const ROLE_OPTIONS = (): SelectOption<Role>[] =>
  [
  { label: t('Admin'), value: 'Admin' },
  { label: t('User'), value: 'User' },
];

/** Role Assignment (Admin only): one role per user, Assign enabled once a role is chosen. */
export default function AssignScreen() {
  const users = useAdminUsers();
  const assign = useAssignRole();
  const me = useSession((s) => s.user);
  const [chosen, setChosen] = useState<Record<number, Role | null>>({});
  const [busyId, setBusyId] = useState<number | null>(null);

  useErrorToast(users.error, users.errorUpdatedAt, fetchUsersError);

  const submit = (row: AdminUserRow) => {
    const role = chosen[row.id];
    if (!role) return;
    setBusyId(row.id);
    assign.mutate(
      { userId: row.id, role },
      {
        onSuccess: () => {
          toast.success(t('Role assigned successfully'));
          setChosen((c) => ({ ...c, [row.id]: null }));
          // Changing one's own role takes effect on the next request: keep the session in step.
          if (me && me.id === row.id && me.role !== role) void sessionStore.setUser({ ...me, role });
        },
        onError: () => {
          toast.error(t('Failed to assign role'));
        },
        onSettled: () => setBusyId(null),
      },
    );
  };

  const columns: Column<AdminUserRow>[] = [
    { key: 'name', title: t('Name'), flex: 1.4 },
    { key: 'phone', title: t('Phone'), flex: 1.2 },
    { key: 'role', title: t('Current Role'), flex: 1, render: (row) => row.role },
    {
      key: 'assign',
      title: t('Assign Role'),
      flex: 2,
      render: (row) => (
        <View style={styles.assign}>
          <View style={styles.select}>
            <Select<Role>
              testID={`assign-role-${row.id}`}
              placeholder={t('Select a role')}
              accessibilityLabel={t('Role for {{name}}', { name: row.name })}
              options={ROLE_OPTIONS()}
              value={chosen[row.id] ?? null}
              onChange={(role) => setChosen((c) => ({ ...c, [row.id]: role }))}
              disabled={busyId === row.id}
            />
          </View>
          <Button
            title={t('Assign')}
            size="sm"
            testID={`assign-submit-${row.id}`}
            accessibilityLabel={t('Assign role to {{name}}', { name: row.name })}
            disabled={!chosen[row.id] || (busyId !== null && busyId !== row.id)}
            loading={busyId === row.id}
            onPress={() => submit(row)}
          />
        </View>
      ),
    },
  ];

  return (
    <Screen title={t('Role Assignment')} testID="screen-assign">
      <DataTable
        testID="assign-table"
        columns={columns}
        data={Array.isArray(users.data) ? users.data : []}
        keyExtractor={(row) => String(row.id)}
        loading={users.isPending}
        loadingText={t('Loading users...')}
        error={users.isError ? fetchUsersError(users.error) : null}
        emptyText={t('No users found')}
        stackBelow={640}
        stackedRole="list"
      />
    </Screen>
  );
}

const styles = StyleSheet.create({
  assign: { flexDirection: 'row', alignItems: 'center', gap: spacing.sm, flexWrap: 'wrap', alignSelf: 'stretch' },
  select: { flexGrow: 1, flexBasis: 140, minWidth: 0 },
});
