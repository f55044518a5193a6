import * as Clipboard from 'expo-clipboard';
import { useState } from 'react';
import { Platform, View, type TextStyle, type ViewStyle } from 'react-native';

import { toast } from '../../state/toast';
import { type ThemedStyle, useThemedStyles } from '../../theme';
import { Button } from '../Button';
import { Checkbox } from '../Checkbox';
import { Text } from '../Text';
import { t } from '../../i18n';

export interface BackupCodesProps {
  codes: string[];
  /** The user has saved them: the codes are never shown again. */
  onDone: () => void;
}

/** The ten backup codes, shown once after turning two-factor sign-in on: copy, confirm they are saved, done. */
export function BackupCodes({ codes, onDone }: BackupCodesProps) {
  const styles = useThemedStyles(themed);
  const [saved, setSaved] = useState(false);

  const copy = async () => {
    try {
      await Clipboard.setStringAsync(codes.join('\n'));
      toast.success(t('Backup codes copied'));
    } catch {
      toast.error(t('Could not copy: write the codes down instead'));
    }
  };

  return (
    <View style={styles.box} testID="twofactor-backup-codes">
      <Text>
        {t('Two-factor sign-in is on. Keep these backup codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.')}
      </Text>
      <View role="list" aria-label={t('Backup codes')} style={styles.grid}>
        {codes.map((code) => (
          <View key={code} role="listitem" style={styles.cell}>
            <Text selectable style={styles.code} testID="twofactor-backup-code">
              {code}
            </Text>
          </View>
        ))}
      </View>
      <View style={styles.row}>
        <Button title={t('Copy codes')} icon="copy" variant="outline" onPress={() => void copy()} testID="twofactor-copy-codes" />
      </View>
      <Checkbox label={t('I have saved these codes')} checked={saved} onChange={setSaved} testID="twofactor-codes-saved" />
      <View style={styles.row}>
        <Button title={t('Done')} disabled={!saved} onPress={onDone} testID="twofactor-codes-done" />
      </View>
    </View>
  );
}

const themed: ThemedStyle<{ box: ViewStyle; grid: ViewStyle; cell: ViewStyle; code: TextStyle; row: ViewStyle }> = ({
  colors,
  spacing,
  radius,
  fontSize,
}) => ({
  box: { gap: spacing.md },
  grid: { flexDirection: 'row', flexWrap: 'wrap', gap: spacing.sm },
  cell: {
    minWidth: 132,
    paddingHorizontal: spacing.md,
    paddingVertical: spacing.sm,
    borderRadius: radius.md,
    borderWidth: 1,
    borderColor: colors.border,
    backgroundColor: colors.surfaceMuted,
  },
  code: { fontFamily: Platform.select({ ios: 'Menlo', default: 'monospace' }), fontSize: fontSize.md, color: colors.text },
  row: { flexDirection: 'row', flexWrap: 'wrap', gap: spacing.sm },
});
