import { StyleSheet, View } from 'react-native';

import { spacing, useTheme } from '../theme';
import { Button } from './Button';
import { Text } from './Text';
import { t } from '../i18n';

export interface ErrorViewProps {
  status?: number;
  statusText?: string;
  message?: string;
  onRetry?: () => void;
  onHome?: () => void;
}

/** 'Unexpected Application Error!' with "status text" or the error's message (spec §2). */
export function ErrorView({ status, statusText, message, onRetry, onHome }: ErrorViewProps) {
  const { colors } = useTheme();
  const detail = status ? `${status}${statusText ? ` ${statusText}` : ''}` : message || t('Something went wrong');
  return (
    <View testID="error-page" style={[styles.page, { backgroundColor: colors.background }]}>
      <Text variant="title">{t('Unexpected Application Error!')}</Text>
      <Text testID="error-detail" variant="subtitle" style={{ color: colors.textMuted, fontStyle: 'italic' }}>
        {detail}
      </Text>
      <View style={styles.actions}>
        {onRetry ? <Button title={t('Try again')} variant="outline" onPress={onRetry} /> : null}
        {onHome ? <Button title={t('Go to Dashboard')} variant="link" onPress={onHome} /> : null}
      </View>
    </View>
  );
}

const styles = StyleSheet.create({
  page: { flex: 1, padding: spacing.xl, gap: spacing.md },
  actions: { flexDirection: 'row', gap: spacing.md, alignItems: 'center' },
});
