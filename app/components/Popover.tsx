import type { ReactNode } from 'react';
import { Modal as RNModal, Pressable, StyleSheet, View, useWindowDimensions, type StyleProp, type ViewStyle } from 'react-native';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import { radius, useTheme } from '../theme';

export interface PopoverProps {
  visible: boolean;
  onClose: () => void;
  /** Distance from the top of the window (below the header). */
  top: number;
  /** Distance from the right edge of the window. */
  right: number;
  width: number;
  children: ReactNode;
  testID?: string;
  accessibilityLabel?: string;
  style?: StyleProp<ViewStyle>;
}

/**
 * A dropdown panel anchored at the top right (header menus). An outside
 * click closes it. Never wider than the window minus a small margin.
 */
export function Popover({ visible, onClose, top, right, width, children, testID, accessibilityLabel, style }: PopoverProps) {
  const { colors } = useTheme();
  const window = useWindowDimensions();
  const insets = useSafeAreaInsets();
  const margin = 8;
  const w = Math.min(width, window.width - margin * 2);
  const r = Math.max(margin, Math.min(right, window.width - w - margin));
  return (
    <RNModal visible={visible} transparent animationType="none" onRequestClose={onClose}>
      <Pressable testID={testID ? `${testID}-backdrop` : undefined} style={StyleSheet.absoluteFill} onPress={onClose} accessibilityLabel="Close menu" />
      <View
        testID={testID}
        role="menu"
        aria-label={accessibilityLabel}
        style={[
          styles.panel,
          { top: top + insets.top, right: r, width: w, backgroundColor: colors.surface, borderColor: colors.border },
          style,
        ]}
      >
        {children}
      </View>
    </RNModal>
  );
}

const styles = StyleSheet.create({
  panel: {
    position: 'absolute',
    borderWidth: 1,
    borderRadius: radius.md,
    overflow: 'hidden',
    shadowColor: '#000',
    shadowOpacity: 0.15,
    shadowRadius: 12,
    shadowOffset: { width: 0, height: 4 },
    elevation: 8,
  },
});
