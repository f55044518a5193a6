import { useAuditChain } from '../services/api/admin';
import { Badge } from './Badge';
import { t } from '../i18n';

/**
 * Whether the audit log's hash chain verifies: 'Audit chain verified'
 * (success) or 'Audit chain broken at entry N' (danger); neutral while it
 * is checked. When the check itself fails, nothing is shown: no claim
 * either way.
 */
export function AuditChainBadge() {
  const chain = useAuditChain();
  if (chain.isPending) {
    return <Badge label={t('Checking audit chain…')} tone="neutral" role="status" testID="audit-chain-badge" accessibilityLabel={t('Checking the audit chain')} />;
  }
  if (chain.isError || !chain.data) return null;
  const { ok, verified_through: through, first_bad_id: bad } = chain.data;
  if (ok) {
    return (
      <Badge
        label={t('Audit chain verified')}
        tone="success"
        role="status"
        testID="audit-chain-badge"
        accessibilityLabel={through ? t('Audit chain verified through entry {{through}}', { through }) : t('Audit chain verified')}
      />
    );
  }
  const label = bad ? t('Audit chain broken at entry {{id}}', { id: bad }) : t('Audit chain broken');
  return <Badge label={label} tone="danger" role="status" testID="audit-chain-badge" accessibilityLabel={label} />;
}
