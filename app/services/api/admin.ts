import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { client } from './typed';
import { queryKeys } from './keys';
import type { AdminUserRow, AuditChainVerification, AuditLog, AuditLogPage, Role } from './types';
import { t } from '../../i18n';

export const adminApi = {
  users: () => client.GET('/api/admin/users'),
  setStatus: (id: number, isActive: boolean) => client.PUT('/api/admin/users/{id}/status', { params: { path: { id } }, body: { is_active: isActive } }),
  assignRole: (userId: number, role: Role) =>
    client.POST('/api/admin/assign-roles', { body: { user_id: userId, roles: [role] } }),
  auditLogs: (query: { limit?: number; before?: string } = {}) => client.GET('/api/admin/audit-logs', { params: { query } }),
  auditChain: () => client.GET('/api/admin/audit-logs/verify'),
};

export function useAdminUsers() {
  return useQuery({ queryKey: queryKeys.adminUsers, queryFn: adminApi.users });
}

/** Toggles a user's active flag and updates the cached list in place. */
export function useSetUserStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, isActive }: { id: number; isActive: boolean }) => adminApi.setStatus(id, isActive),
    onSuccess: (row, { id, isActive }) => {
      qc.setQueryData<AdminUserRow[]>(queryKeys.adminUsers, (rows) =>
        rows?.map((r) => (r.id === id ? { ...r, ...(row ?? {}), status: row?.status ?? isActive } : r)),
      );
    },
  });
}

/** Assigns one role; the answered row replaces the cached one, then the list is refreshed. */
export function useAssignRole() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: number; role: Role }) => adminApi.assignRole(userId, role),
    onSuccess: (answer, { userId, role }) => {
      qc.setQueryData<AdminUserRow[]>(queryKeys.adminUsers, (rows) =>
        rows?.map((r) => (r.id === userId ? { ...r, ...(answer?.user ?? {}), role: answer?.user?.role ?? role } : r)),
      );
      return qc.invalidateQueries({ queryKey: queryKeys.adminUsers });
    },
  });
}

/** The audit log answer did not hold an `audit_logs` array. */
export class UnexpectedFormatError extends Error {
  constructor() {
    super(t('Unexpected response format from server'));
    this.name = 'UnexpectedFormatError';
  }
}

/** One checked page of audit logs: `audit_logs` must be an array. */
export async function fetchAuditLogPage(limit: number, before?: string): Promise<{ logs: AuditLog[]; nextCursor: string | null }> {
  const answer: unknown = await adminApi.auditLogs({ limit, before });
  const logs = answer !== null && typeof answer === 'object' ? (answer as Partial<AuditLogPage>).audit_logs : undefined;
  if (!Array.isArray(logs)) throw new UnexpectedFormatError();
  const cursor = (answer as Partial<AuditLogPage>).next_cursor;
  return { logs, nextCursor: typeof cursor === 'string' && cursor !== '' ? cursor : null };
}

export const AUDIT_LOG_PAGE_SIZE = 50;

/** Audit logs, newest first, a page at a time ("load more": limit + before=next_cursor). */
export function useAuditLogPages(limit: number = AUDIT_LOG_PAGE_SIZE) {
  return useInfiniteQuery({
    queryKey: queryKeys.auditLogPages(limit),
    queryFn: ({ pageParam }) => fetchAuditLogPage(limit, pageParam ?? undefined),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

/** The audit chain check; an answer without a boolean `ok` counts as a failure. */
export async function fetchAuditChain(): Promise<AuditChainVerification> {
  const answer: unknown = await adminApi.auditChain();
  if (answer === null || typeof answer !== 'object' || typeof (answer as Partial<AuditChainVerification>).ok !== 'boolean') {
    throw new UnexpectedFormatError();
  }
  return answer as AuditChainVerification;
}

/** Whether the audit log's hash chain verifies (GET /api/admin/audit-logs/verify). */
export function useAuditChain() {
  return useQuery({ queryKey: queryKeys.auditChain, queryFn: fetchAuditChain, retry: false });
}
