/** '$1,250.50' — money is shown in US dollars with a $ prefix and 2 decimals. */
export function formatMoney(value: number | string | null | undefined): string {
  const n = typeof value === 'string' ? Number(value) : value ?? 0;
  const safe = Number.isFinite(n) ? (n as number) : 0;
  const sign = safe < 0 ? '-' : '';
  const [int, dec] = Math.abs(safe).toFixed(2).split('.');
  return `${sign}$${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${dec}`;
}

/** The date part of an ISO timestamp (before the T). */
export function datePart(iso: string | null | undefined): string {
  if (!iso) return '';
  const i = iso.indexOf('T');
  return i === -1 ? iso : iso.slice(0, i);
}

/** Initials for the avatar: 'Alice Doe' -> 'AD'. */
export function initials(name: string | null | undefined): string {
  if (!name) return '?';
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? parts[0][0] + parts[parts.length - 1][0] : (parts[0] ?? '?').slice(0, 2);
  return letters.toUpperCase();
}

let counter = 0;
/** Locally generated ids (toasts, notifications pushed without an id). */
export function localId(prefix = 'local'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}
