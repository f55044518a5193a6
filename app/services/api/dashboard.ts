import { useQuery } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { api } from './client';
import { queryKeys } from './keys';
import type { AdminDashboardSummary, DashboardSummary, DataResponse, MonthlyPoint, Role } from './types';

export const dashboardApi = {
  summary: async (role: Role): Promise<DashboardSummary | AdminDashboardSummary> =>
    (
      await api.get<DataResponse<DashboardSummary | AdminDashboardSummary>>(
        role === 'Admin' ? '/admin/admindashboard/transactions-summary' : '/user/dashboard/transactions-summary',
      )
    ).data,
  monthly: (role: Role) =>
    api.get<MonthlyPoint[]>(
      role === 'Admin' ? '/admin/admindashboard/monthly-transactions' : '/user/dashboard/monthly-transactions',
    ),
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
