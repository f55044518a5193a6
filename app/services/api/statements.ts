import { useMutation } from '@tanstack/react-query';

import { saveDownload } from '../download';
import type { StatementFormat, StatementQuery } from './types';

export const STATEMENT_MIME: Record<StatementFormat, string> = { csv: 'text/csv', pdf: 'application/pdf' };

/** The name a statement is saved under when the server does not name it. */
export function statementFilename({ account_id, from, to, format }: StatementQuery): string {
  return `statement-${account_id}-${from}-to-${to}.${format}`;
}

/** GET /api/user/statements, saved as a file: a download on the web, the share sheet on Android/iOS. */
export function downloadStatement(query: StatementQuery) {
  return saveDownload({
    path: '/user/statements',
    query: { ...query },
    filename: statementFilename(query),
    mimeType: STATEMENT_MIME[query.format],
  });
}

export function useDownloadStatement() {
  return useMutation({ mutationFn: downloadStatement });
}
