import { Badge, statusTone } from './Badge';
import { t } from '../i18n';

/**
 * Every status word the server sends (requests, transactions, scheduled
 * transfers and their runs), as a person reads it: capitalised and in their
 * language ('completed' → 'Completed', DEBIT → 'Debit'), so every badge of
 * the app is written alike. An unknown value is shown capitalised.
 */
const STATUS_LABELS: Record<string, () => string> = {
  PENDING: () => t('Pending'),
  ACCEPTED: () => t('Accepted'),
  APPROVED: () => t('Approved'),
  REJECTED: () => t('Rejected'),
  EXPIRED: () => t('Expired'),
  DEBIT: () => t('Debit'),
  CREDIT: () => t('Credit'),
  ACTIVE: () => t('Active'),
  COMPLETED: () => t('Completed'),
  CANCELLED: () => t('Cancelled'),
  SUCCEEDED: () => t('Succeeded'),
  FAILED: () => t('Failed'),
};

export function statusLabel(status: string | null | undefined): string {
  if (!status) return '-';
  const known = STATUS_LABELS[String(status).toUpperCase()];
  if (known) return known();
  const text = String(status).toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A money request's Status as a coloured badge (spec §4): accepted green,
 * rejected red, expired grey, pending yellow, anything else grey.
 */
export function StatusBadge({ status, testID }: { status: string | null | undefined; testID?: string }) {
  const label = statusLabel(status);
  return <Badge label={label} tone={statusTone(status)} testID={testID} accessibilityLabel={t('Status {{status}}', { status: label })} />;
}

/** 'debit' for DEBIT, 'credit' for any other value (spec §2). */
export function transactionTypeLabel(type: string | null | undefined): 'debit' | 'credit' {
  return type === 'DEBIT' ? 'debit' : 'credit';
}

/** The transaction type as a badge: Debit red, Credit green. */
export function TransactionTypeBadge({ type, testID }: { type: string | null | undefined; testID?: string }) {
  const kind = transactionTypeLabel(type);
  return <Badge label={statusLabel(kind)} tone={kind === 'debit' ? 'danger' : 'success'} testID={testID} />;
}

/** Whether a money request offers Accept/Decline: the caller's incoming PENDING requests only (spec §4). */
export function canAnswerRequest(r: { direction?: string; Status?: string }): boolean {
  return r.direction === 'incoming' && String(r.Status ?? '').toUpperCase() === 'PENDING';
}
