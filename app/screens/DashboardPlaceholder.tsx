import { Card, Screen, Text } from '../components';
import { LazyAreaChart } from '../components/charts';
import { useMonthlySummary } from '../services/api/dashboard';

/**
 * Placeholder dashboard: the title and the monthly chart (spec: height 300).
 * The cards and tables of spec §2 are still to be built here.
 */
export function DashboardPlaceholder({ title, chartTitle, testID }: { title: string; chartTitle: string; testID: string }) {
  const monthly = useMonthlySummary();
  return (
    <Screen title={title} testID={testID}>
      <Card title={chartTitle} testID="dashboard-chart">
        {monthly.isPending ? (
          <Text variant="muted">Loading dashboard...</Text>
        ) : (
          <LazyAreaChart data={monthly.data ?? []} height={300} />
        )}
      </Card>
    </Screen>
  );
}
