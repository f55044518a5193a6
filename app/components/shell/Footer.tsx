import { Pressable, StyleSheet, View } from 'react-native';

import { spacing, useTheme } from '../../theme';
import { Text } from '../Text';
import { t } from '../../i18n';

/** Copyright line and two placeholder links that lead nowhere. */
export function Footer() {
  const { colors } = useTheme();
  return (
    <View testID="footer" role="contentinfo" style={[styles.footer, { borderColor: colors.border }]}>
      <Text variant="small">{t('© 2024 Meridian Bank. All rights reserved.')}</Text>
      <View style={styles.links}>
        <Pressable role="link" testID="footer-privacy" onPress={() => undefined}>
          <Text variant="small" style={{ color: colors.primary }}>
            {t('Privacy Policy')}
          </Text>
        </Pressable>
        <Pressable role="link" testID="footer-terms" onPress={() => undefined}>
          <Text variant="small" style={{ color: colors.primary }}>
            {t('Terms of Service')}
          </Text>
        </Pressable>
      </View>
    </View>
  );
}

const styles = StyleSheet.create({
  footer: {
    borderTopWidth: 1,
    paddingHorizontal: spacing.lg,
    paddingVertical: spacing.md,
    flexDirection: 'row',
    flexWrap: 'wrap',
    justifyContent: 'space-between',
    alignItems: 'center',
    gap: spacing.sm,
  },
  links: { flexDirection: 'row', gap: spacing.lg },
});
