import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { client } from './typed';
import { invalidateMoneyQueries, queryFamilies, queryKeys } from './keys';
import type { FxQuotePayload } from './types';

/** Currencies and exchange (contract §8). */
export const fxApi = {
  /** The pairs an admin set (any signed-in user). */
  rates: () => client.GET('/api/fx-rates'),
  /** Admin: 1 `base` = `rate` `quote`; the inverse pair is derived by the server. */
  setRate: (base: string, quote: string, rate: number) =>
    client.PUT('/api/admin/fx-rates/{base}/{quote}', { params: { path: { base, quote } }, body: { rate } }),
  /** A rate held for 30 seconds: the amount in the source currency, what the target receives. */
  quote: (payload: FxQuotePayload) => client.POST('/api/user/fx-quotes', { body: payload }),
  /** Exchanges at a quote's rate; the same Idempotency-Key for a retry of the same confirm. */
  exchange: (quoteId: number, description: string, idempotencyKey: string) =>
    client.POST('/api/user/fx-transfers', { body: { quote_id: quoteId, description }, headers: { 'Idempotency-Key': idempotencyKey } }),
};

/** The currencies the bank offers accounts in (contract §8: account types exist for these). */
export const CURRENCIES = ['USD', 'EUR', 'GBP'] as const;

export function useFxRates() {
  return useQuery({ queryKey: queryKeys.fxRates, queryFn: fxApi.rates });
}

export function useSetFxRate() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ base, quote, rate }: { base: string; quote: string; rate: number }) => fxApi.setRate(base, quote, rate),
    // A new rate changes the dashboards' approximate totals too.
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: queryKeys.fxRates }), qc.invalidateQueries({ queryKey: queryFamilies.dashboard })]),
  });
}

export function useFxQuote() {
  return useMutation({ mutationFn: fxApi.quote });
}

export function useExchange() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ quoteId, description, idempotencyKey }: { quoteId: number; description: string; idempotencyKey: string }) =>
      fxApi.exchange(quoteId, description, idempotencyKey),
    onSuccess: () => invalidateMoneyQueries(qc),
  });
}
