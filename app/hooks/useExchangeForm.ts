import { useMemo, useRef, useState } from 'react';

import { useAccounts } from '../services/api/accounts';
import { ApiError, errorMessage } from '../services/api/client';
import { useExchange, useFxQuote } from '../services/api/fx';
import { newIdempotencyKey } from '../services/api/transactions';
import type { Account, FxQuote } from '../services/api/types';
import { toast } from '../state/toast';
import { amountForApi, exchangeFormError } from '../utils/validation';
import { useCountdown } from './useCountdown';
import { t } from '../i18n';

/** How long the server holds a quote's rate (contract §8). */
export const QUOTE_SECONDS = 30;

/** The target picker's choice for an account number typed by hand. */
export const TYPED_TARGET = '__typed__';

/** The codes of a quote that can no longer be used: ask for a new one. */
const QUOTE_GONE = new Set(['quote_expired', 'quote_used']);

export interface ExchangeFormValues {
  from: string | null;
  /** One of the caller's account numbers, or TYPED_TARGET. */
  target: string | null;
  /** The account number typed when target is TYPED_TARGET. */
  typed: string;
  amount: string;
  note: string;
}

const EMPTY: ExchangeFormValues = { from: null, target: null, typed: '', amount: '', note: '' };

/** A quote on screen: when its rate stops holding on this device's clock. */
interface HeldQuote {
  quote: FxQuote;
  deadline: number;
}

/**
 * When a quote stops holding, on this device's clock: its `expires_at`, but
 * never later than 30 s after the request left (a device clock behind the
 * server's would otherwise show time the server no longer gives), and the
 * 30 s alone when `expires_at` already passed on arrival (a clock ahead).
 */
export function quoteDeadline(expiresAt: string, sentAt: number, receivedAt: number): number {
  const byServer = Date.parse(expiresAt);
  const byTtl = sentAt + QUOTE_SECONDS * 1000;
  if (!Number.isFinite(byServer) || byServer <= receivedAt) return byTtl;
  return Math.min(byServer, byTtl);
}

/**
 * The exchange page's form (contract §8): the source account, the target
 * (one of the caller's accounts in another currency, or a typed account
 * number), the amount; "Get quote" fixes the rate for 30 seconds, with a
 * countdown; Confirm exchanges at it, with one Idempotency-Key per quote so
 * a retry of the same confirm cannot exchange twice. A quote that expired on
 * screen, or that the server calls expired or used (409), asks for a new one.
 */
export function useExchangeForm() {
  const accounts = useAccounts();
  const quoteCall = useFxQuote();
  const exchange = useExchange();
  const [form, setForm] = useState<ExchangeFormValues>(EMPTY);
  const [held, setHeld] = useState<HeldQuote | null>(null);
  /** The server's sentence when it refused the quote at Confirm (expired or used): only a new quote helps. */
  const [gone, setGone] = useState<string | null>(null);
  /** A confirm whose outcome is unknown (no answer, or a 5xx): its retry must stay possible, with the same key. */
  const [uncertain, setUncertain] = useState(false);
  const idem = useRef<{ quoteId: number; key: string } | null>(null);
  const inFlight = useRef(false);
  /** Counts the changes of the figures: a quote that arrives after one is for figures no longer on screen. */
  const figures = useRef(0);
  const secondsLeft = useCountdown(held?.deadline ?? null);

  const own: Account[] = useMemo(() => (Array.isArray(accounts.data) ? accounts.data : []), [accounts.data]);
  const source = own.find((a) => a.account_number === form.from) ?? null;
  // Own accounts in another currency than the source's (all others until a source is chosen).
  const targets = own.filter((a) => a.account_number !== form.from && (!source || a.currency !== source.currency));
  const toNumber = form.target === TYPED_TARGET ? form.typed.trim() : form.target ?? '';

  const dropQuote = () => {
    setHeld(null);
    setGone(null);
    setUncertain(false);
    idem.current = null;
  };

  /** Any change of the form drops the quote on screen: it was for other figures. */
  const set = <K extends keyof ExchangeFormValues>(key: K, value: ExchangeFormValues[K]) => {
    setForm((f) => {
      const next = { ...f, [key]: value };
      // A target in the new source's currency is no target any more.
      if (key === 'from') {
        const from = own.find((a) => a.account_number === value);
        const target = own.find((a) => a.account_number === f.target);
        if (target && (target.account_number === value || target.currency === from?.currency)) next.target = null;
      }
      return next;
    });
    if (key !== 'note') {
      figures.current += 1;
      dropQuote();
    }
  };

  const getQuote = () => {
    if (quoteCall.isPending) return;
    const invalid = exchangeFormError({ from: form.from, amount: form.amount, to: toNumber });
    if (invalid || !form.from) {
      toast.error(invalid ?? t('Amount, From Account, and To Account are required.'));
      return;
    }
    dropQuote();
    const asked = figures.current;
    const sentAt = Date.now();
    quoteCall.mutate(
      { from_account_id: form.from, to_account_id: toNumber, amount: Number(amountForApi(form.amount)) },
      {
        onSuccess: (quote) => {
          if (asked === figures.current) setHeld({ quote, deadline: quoteDeadline(quote.expires_at, sentAt, Date.now()) });
        },
        onError: (err) => toast.error(errorMessage(err, t('Failed to get a quote'))),
      },
    );
  };

  const expired = held !== null && secondsLeft === 0;
  // A confirm that got no answer may be retried after the countdown: the same key replays its outcome.
  const canConfirm = held !== null && gone === null && (!expired || uncertain) && !exchange.isPending;

  const confirm = () => {
    if (!held || !canConfirm || inFlight.current) return;
    const quoteId = held.quote.id;
    if (!idem.current || idem.current.quoteId !== quoteId) idem.current = { quoteId, key: newIdempotencyKey() };
    inFlight.current = true;
    exchange.mutate(
      { quoteId, description: form.note.trim(), idempotencyKey: idem.current.key },
      {
        onSuccess: () => {
          toast.success(t('Exchange successful!'));
          setForm(EMPTY);
          dropQuote();
        },
        onError: (err) => {
          const code = err instanceof ApiError ? err.code : undefined;
          const status = err instanceof ApiError ? err.status : 0;
          if (code && QUOTE_GONE.has(code)) {
            setGone(errorMessage(err, t('This quote can no longer be used.')));
            setUncertain(false);
            return;
          }
          setUncertain(status === 0 || status >= 500);
          toast.error(errorMessage(err, t('Exchange failed')));
        },
        onSettled: () => {
          inFlight.current = false;
        },
      },
    );
  };

  return {
    accounts: own,
    loadingAccounts: accounts.isPending,
    accountsError: accounts.error,
    accountsErrorUpdatedAt: accounts.errorUpdatedAt,
    form,
    set,
    source,
    targets,
    quote: held?.quote ?? null,
    /** The target is one of the caller's own accounts (the quote says "You receive"). */
    ownTarget: form.target !== null && form.target !== TYPED_TARGET,
    secondsLeft,
    expired,
    /** The server's refusal of the quote (expired or used), shown with "Get a new quote". */
    gone,
    getQuote,
    quoting: quoteCall.isPending,
    confirm,
    canConfirm,
    confirming: exchange.isPending,
  };
}
