import { useNavigation } from '@react-navigation/native';

import { ErrorView } from '../components';

/** Unknown URLs: the generic error page with 404 Not Found. */
export default function NotFoundScreen() {
  const navigation = useNavigation();
  return (
    <ErrorView
      status={404}
      statusText="Not Found"
      onHome={() => navigation.reset({ index: 0, routes: [{ name: 'App', params: { screen: 'Dashboard' } }] })}
    />
  );
}
