import { isAdmin, useSession } from '../state/session';
import AdminDashboardScreen from './AdminDashboardScreen';
import UserDashboardScreen from './UserDashboardScreen';

// One chunk for the home page (this screen, both dashboards and the chart):
// the page waits for one download, not for three in a row.

/** '/': the Admin Dashboard for role Admin, the User Dashboard otherwise. */
export default function DashboardScreen() {
  const admin = useSession((s) => isAdmin(s.user));
  return admin ? <AdminDashboardScreen /> : <UserDashboardScreen />;
}
