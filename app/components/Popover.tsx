import type { ReactNode } from 'react';
import { Modal as RNModal, Platform, Pressable, StyleSheet, View, useWindowDimensions, type StyleProp, type ViewStyle } from 'react-native';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import { useDismissKey } from '../hooks/useDismissKey';
import { elevation, radius, spacing, useTheme } from '../theme';
import { Toaster } from './Toaster';

/** A rectangle in window coordinates (`measureInWindow`). */
export interface AnchorRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PopoverProps {
  visible: boolean;
  onClose: () => void;
  /** Header menus: distance from the top of the safe area (below the header). */
  top?: number;
  /** Header menus: distance from the right edge of the window. */
  right?: number;
  /** Menus of a control: opened below it, right edges aligned. Wins over top/right once measured. */
  anchor?: AnchorRect | null;
  width: number;
  children: ReactNode;
  testID?: string;
  accessibilityLabel?: string;
  style?: StyleProp<ViewStyle>;
}

const MARGIN = spacing.sm;

/**
 * A dropdown panel over everything (a React Native Modal: its own window on
 * Android/iOS, a focus-trapping layer on the web). An outside click, Escape
 * (web) or the back button (Android) closes it. Never wider than the window
 * minus a small margin.
 */
export function Popover({ visible, onClose, top = 0, right = MARGIN, anchor, width, children, testID, accessibilityLabel, style }: PopoverProps) {
  const { colors } = useTheme();
  const window = useWindowDimensions();
  const insets = useSafeAreaInsets();
  const w = Math.min(width, window.width - MARGIN * 2);
  const wantedRight = anchor ? window.width - (anchor.x + anchor.width) : right;
  const r = Math.max(MARGIN, Math.min(wantedRight, window.width - w - MARGIN));
  const topY = anchor ? anchor.y + anchor.height + spacing.xs : top + insets.top;
  // The web: Escape (see useDismissKey.web); Android: the back button reaches onRequestClose.
  useDismissKey(Platform.OS === 'web' && visible, onClose);
  return (
    <RNModal
      visible={visible}
      transparent
      animationType="none"
      onRequestClose={() => visible && onClose()}
      statusBarTranslucent
      navigationBarTranslucent
    >
      <Pressable
        testID={testID ? `${testID}-backdrop` : undefined}
        style={StyleSheet.absoluteFill}
        onPress={onClose}
        focusable={false}
        tabIndex={-1}
        accessible={false}
        aria-hidden
        importantForAccessibility="no-hide-descendants"
      />
      <View
        testID={testID}
        role="menu"
        aria-label={accessibilityLabel}
        style={[
          styles.panel,
          elevation.menu,
          { top: topY, right: r, width: w, backgroundColor: colors.surface, borderColor: colors.border, shadowColor: colors.shadow },
          style,
        ]}
      >
        {children}
      </View>
      {visible ? <Toaster /> : null}
    </RNModal>
  );
}

const styles = StyleSheet.create({
  panel: {
    position: 'absolute',
    borderWidth: 1,
    borderRadius: radius.md,
    overflow: 'hidden',
  },
});
