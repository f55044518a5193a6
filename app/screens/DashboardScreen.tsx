import { lazy } from 'react';

import { isAdmin, useSession } from '../state/session';

// Each dashboard is its own chunk (charts are heavy); only the one for the role loads.
const AdminDashboardScreen = lazy(() => import('./AdminDashboardScreen'));
const UserDashboardScreen = lazy(() => import('./UserDashboardScreen'));

/** '/': the Admin Dashboard for role Admin, the User Dashboard otherwise. */
export default function DashboardScreen() {
  const admin = useSession((s) => isAdmin(s.user));
  return admin ? <AdminDashboardScreen /> : <UserDashboardScreen />;
}
