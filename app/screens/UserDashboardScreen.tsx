import { DashboardView } from '../components/dashboard/DashboardView';

/** User Dashboard (spec §2): title 'Dashboard'. */
export default function UserDashboardScreen() {
  return <DashboardView variant="user" />;
}
