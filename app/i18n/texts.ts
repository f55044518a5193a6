/**
 * The texts that several screens show, written once (style item 8: one
 * place for each error text). A screen names them (`texts.accountsFailed()`)
 * and never writes them; the untranslated test refuses a "Failed to ..."
 * text written in two places.
 */
import { t } from './index';

export type RequestAnswer = 'accept' | 'decline';

export const texts = {
  /** A toast: the accounts could not be read. */
  accountsFailed: () => t('Failed to fetch accounts'),
  /** A toast: the account types could not be read. */
  accountTypesFailed: () => t('Failed to fetch account types'),
  /** A toast: the history could not be read. */
  transactionsFailed: () => t('Failed to fetch transactions'),
  /** Inline, in a history table. */
  transactionsLoadFailed: () => t('Failed to load transactions'),
  /** A toast: the money requests could not be read. */
  moneyRequestsFailed: () => t('Failed to fetch money requests'),
  /** Four eyes: the server answered 202 `{approval}`; nothing ran yet. */
  awaitingApproval: () => t("Waiting for a second administrator's approval"),
  requestAnswered: (answer: RequestAnswer) => (answer === 'accept' ? t('Money request accepted!') : t('Money request rejected!')),
  requestAnswerFailed: (answer: RequestAnswer) => (answer === 'accept' ? t('Failed to accept request') : t('Failed to reject request')),
};
