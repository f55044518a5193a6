import { useQuery } from '@tanstack/react-query';

import { client } from './typed';
import { queryKeys } from './keys';

/** GET /api/config: no token needed. */
export const configApi = {
  get: () => client.GET('/api/config'),
};

/** The server's public configuration; read once in a while (it changes only with a restart). */
export function useServerConfig() {
  return useQuery({ queryKey: queryKeys.config, queryFn: configApi.get, staleTime: 5 * 60_000 });
}

/**
 * Whether customers may set an opening balance and edit balances (config
 * `customer_funding`). True until the server says otherwise, as its default
 * is: a server that refuses still answers 422 with its own sentence.
 */
export function useCustomerFunding(): boolean {
  const config = useServerConfig();
  return config.data?.customer_funding !== false;
}
