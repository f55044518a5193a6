import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { client } from './typed';
import { queryFamilies, queryKeys } from './keys';
import type { HomeCurrency } from './types';

export const preferencesApi = {
  get: () => client.GET('/api/user/preferences'),
  setHomeCurrency: (homeCurrency: HomeCurrency) => client.PUT('/api/user/preferences', { body: { home_currency: homeCurrency } }),
};

/** The caller's preferences (a customer's: the home currency). */
export function usePreferences(enabled = true) {
  return useQuery({ queryKey: queryKeys.preferences, queryFn: preferencesApi.get, enabled });
}

/** Sets the home currency; the dashboard's approximate total follows. */
export function useSetHomeCurrency() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: preferencesApi.setHomeCurrency,
    onSuccess: (answer) => {
      qc.setQueryData(queryKeys.preferences, answer);
      return qc.invalidateQueries({ queryKey: queryFamilies.dashboard });
    },
  });
}
