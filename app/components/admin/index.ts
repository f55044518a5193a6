export * from './fetchUsersError';
export * from './useErrorToast';
export * from './AuditChainBadge';
