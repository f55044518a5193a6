import { StyleSheet, View } from 'react-native';

import { fontSize, radius, useTheme } from '../../theme';
import { Text } from '../Text';
import { t } from '../../i18n';

/** Placeholder logo + name. */
export function Logo({ showName }: { showName: boolean }) {
  const { colors } = useTheme();
  return (
    <View style={styles.row} testID="sidebar-logo">
      <View style={[styles.mark, { backgroundColor: colors.primary }]}>
        <Text style={[styles.letter, { color: colors.onPrimary }]}>M</Text>
      </View>
      {showName ? (
        <Text variant="subtitle" numberOfLines={1} style={styles.name}>
          {t('Meridian')}
        </Text>
      ) : null}
    </View>
  );
}

const styles = StyleSheet.create({
  row: { flexDirection: 'row', alignItems: 'center', gap: 10 },
  mark: { width: 34, height: 34, borderRadius: radius.md, alignItems: 'center', justifyContent: 'center' },
  letter: { fontWeight: '800', fontSize: fontSize.lg },
  name: { fontWeight: '700' },
});
