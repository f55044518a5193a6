export * from './fetchUsersError';
export * from './useErrorToast';
