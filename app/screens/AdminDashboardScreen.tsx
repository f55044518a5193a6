import { useNavigation, type NavigationProp } from '@react-navigation/native';
import { useEffect } from 'react';

import { DashboardView } from '../components/dashboard/DashboardView';
import { Loading } from '../components/Loading';
import type { AppParamList } from '../navigators/routes';
import { isAdmin, useSession } from '../state/session';

/** Admin Dashboard (spec §2): only for Admin; anyone else is sent to /. */
export default function AdminDashboardScreen() {
  const user = useSession((s) => s.user);
  const allowed = isAdmin(user);
  const navigation = useNavigation<NavigationProp<AppParamList>>();
  useEffect(() => {
    if (!allowed) navigation.navigate('Dashboard');
  }, [allowed, navigation]);
  if (!allowed) return <Loading testID="admin-dashboard-redirect" />;
  return <DashboardView variant="admin" />;
}
