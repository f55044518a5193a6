import { Badge, statusTone } from './Badge';

/**
 * A money request's Status as a coloured badge (spec §4): accepted green,
 * rejected red, expired grey, pending yellow, anything else grey.
 */
export function StatusBadge({ status, testID }: { status: string | null | undefined; testID?: string }) {
  const label = status ? String(status) : '-';
  return <Badge label={label} tone={statusTone(status)} testID={testID} accessibilityLabel={`Status ${label}`} />;
}

/** 'debit' for DEBIT, 'credit' for any other value (spec §2). */
export function transactionTypeLabel(type: string | null | undefined): 'debit' | 'credit' {
  return type === 'DEBIT' ? 'debit' : 'credit';
}

/** The transaction type as a badge: debit red, credit green. */
export function TransactionTypeBadge({ type, testID }: { type: string | null | undefined; testID?: string }) {
  const label = transactionTypeLabel(type);
  return <Badge label={label} tone={label === 'debit' ? 'danger' : 'success'} testID={testID} />;
}

/** Whether a money request offers Accept/Decline: the caller's incoming PENDING requests only (spec §4). */
export function canAnswerRequest(r: { direction?: string; Status?: string }): boolean {
  return r.direction === 'incoming' && String(r.Status ?? '').toUpperCase() === 'PENDING';
}
