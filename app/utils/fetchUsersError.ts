import { t } from '../i18n';
import { ApiError } from '../services/api/client';

/** 'Failed to fetch users', with the server's message when it sent one (spec §8). */
export function fetchUsersError(error: unknown): string {
  const server = error instanceof ApiError ? error.serverMessage : undefined;
  return server ? t('Failed to fetch users: {{reason}}', { reason: t(server) }) : t('Failed to fetch users');
}
