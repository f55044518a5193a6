/**
 * The file name a `Content-Disposition: attachment; filename=...` header
 * gives (RFC 6266: `filename*=UTF-8''...` first, then `filename="..."`), or
 * null. Only the last path segment is kept, so a name can never be a path.
 */
export function filenameFromDisposition(header: string | null | undefined): string | null {
  if (!header) return null;
  let name: string | null = null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      name = decodeURIComponent(extended[2].trim());
    } catch {
      name = null;
    }
  }
  if (!name) {
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
    if (plain) name = (plain[1] ?? plain[2] ?? '').replace(/\\(.)/g, '$1').trim();
  }
  if (!name) return null;
  const base = name.split(/[\\/]/).pop()?.trim() ?? '';
  return base && base !== '.' && base !== '..' ? base : null;
}
