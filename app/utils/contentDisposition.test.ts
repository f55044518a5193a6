import { filenameFromDisposition } from './contentDisposition';

describe('filenameFromDisposition', () => {
  it('reads filename= quoted or not, and filename* first', () => {
    expect(filenameFromDisposition('attachment; filename="statement-100200300-2026-11.csv"')).toBe('statement-100200300-2026-11.csv');
    expect(filenameFromDisposition('attachment; filename=s.pdf')).toBe('s.pdf');
    expect(filenameFromDisposition("attachment; filename=\"a.csv\"; filename*=UTF-8''r%C3%A9sum%C3%A9.csv")).toBe('résumé.csv');
  });

  it('gives null for nothing usable, and never a path', () => {
    expect(filenameFromDisposition(null)).toBeNull();
    expect(filenameFromDisposition('attachment')).toBeNull();
    expect(filenameFromDisposition('attachment; filename=""')).toBeNull();
    expect(filenameFromDisposition('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(filenameFromDisposition('attachment; filename=".."')).toBeNull();
  });
});
