export * from './BackupCodes';
export * from './DisableTwoFactorModal';
export * from './QrCode';
export * from './SessionsCard';
export * from './TwoFactorCard';
export * from './AccessTokensCard';
export * from './ConnectedAppsCard';
