import { codeOrBackupError, describeUserAgent, groupSecret, normalizeCode, totpCodeError } from './twoFactor';

describe('two-factor codes', () => {
  it('a current code is six digits; the spaces an app shows are dropped', () => {
    expect(normalizeCode(' 123 456 ')).toBe('123456');
    expect(totpCodeError('123 456')).toBeNull();
    expect(totpCodeError('12345')).toBe('Enter the 6-digit code from your authenticator app');
    expect(totpCodeError('1234567')).not.toBeNull();
    expect(totpCodeError('abcdef')).not.toBeNull();
    expect(totpCodeError('')).not.toBeNull();
  });

  it('at sign-in and to turn it off, a backup code works too (hyphen and case free)', () => {
    expect(codeOrBackupError('123456')).toBeNull();
    expect(codeOrBackupError('abcde-fghjk')).toBeNull();
    expect(codeOrBackupError('ABCDEFGHJK')).toBeNull();
    expect(codeOrBackupError('abcde-fghj')).toBe('Enter the 6-digit code from your authenticator app, or a backup code');
    expect(codeOrBackupError('12345')).not.toBeNull();
    expect(codeOrBackupError('')).not.toBeNull();
  });

  it('the setup key is shown in groups of four', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP');
    expect(groupSecret('JBSWY3DPEH')).toBe('JBSW Y3DP EH');
  });
});

describe('describeUserAgent', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0 Safari/537.36', 'Chrome on Linux'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0 Safari/537.36 Edg/141.0', 'Edge on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5; rv:130.0) Gecko/20100101 Firefox/130.0', 'Firefox on macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1', 'Safari on iPhone'],
    ['okhttp/4.12.0', 'Android app'],
    ['curl/8.5.0', 'curl'],
    ['', 'Unknown device'],
    ['node', 'node'],
  ])('%s -> %s', (ua, expected) => {
    expect(describeUserAgent(ua)).toBe(expected);
  });
});
