import { useQuery } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { client } from './typed';
import { queryKeys } from './keys';
import type { AdminDashboardSummary, DashboardSummary, MonthlyPoint, Role } from './types';

export const dashboardApi = {
  summary: async (role: Role): Promise<DashboardSummary | AdminDashboardSummary> =>
    (role === 'Admin' ? await client.GET('/api/admin/admindashboard/transactions-summary') : await client.GET('/api/user/dashboard/transactions-summary')).data,
  monthly: (role: Role) =>
    role === 'Admin' ? client.GET('/api/admin/admindashboard/monthly-transactions') : client.GET('/api/user/dashboard/monthly-transactions'),
};

export function useDashboardSummary() {
  const role: Role = useSession((s) => s.user?.role ?? 'User');
  return useQuery({ queryKey: queryKeys.dashboardSummary(role), queryFn: () => dashboardApi.summary(role) });
}

/** Monthly chart points; a failure silently becomes an empty list (spec §4). */
export function useMonthlySummary() {
  const role: Role = useSession((s) => s.user?.role ?? 'User');
  return useQuery({
    queryKey: queryKeys.dashboardMonthly(role),
    queryFn: () => dashboardApi.monthly(role).catch(() => [] as MonthlyPoint[]),
  });
}
