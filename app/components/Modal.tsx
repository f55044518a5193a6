import type { ReactNode } from 'react';
import { Modal as RNModal, Pressable, ScrollView, StyleSheet, View, useWindowDimensions } from 'react-native';

import { radius, spacing, useTheme } from '../theme';
import { IconButton } from './IconButton';
import { Text } from './Text';

export interface ModalProps {
  visible: boolean;
  onClose: () => void;
  title: string;
  children?: ReactNode;
  /** Buttons row at the bottom. */
  footer?: ReactNode;
  testID?: string;
  maxWidth?: number;
}

/** A closable dialog over a dimmed backdrop (backdrop click, the X button or Escape/back close it). */
export function Modal({ visible, onClose, title, children, footer, testID, maxWidth = 480 }: ModalProps) {
  const { colors } = useTheme();
  const { height } = useWindowDimensions();
  return (
    <RNModal visible={visible} transparent animationType="fade" onRequestClose={onClose}>
      <View style={styles.center}>
        <Pressable
          testID={testID ? `${testID}-backdrop` : undefined}
          accessibilityLabel="Close dialog"
          style={[StyleSheet.absoluteFill, { backgroundColor: colors.backdrop }]}
          onPress={onClose}
        />
        <View
          testID={testID}
          role="dialog"
          aria-modal
          aria-label={title}
          style={[
            styles.panel,
            { backgroundColor: colors.surface, borderColor: colors.border, maxWidth, maxHeight: height * 0.9 },
          ]}
        >
          <View style={styles.header}>
            <Text variant="subtitle" role="heading" aria-level={2} style={styles.title}>
              {title}
            </Text>
            <IconButton icon="x" accessibilityLabel="Close" onPress={onClose} />
          </View>
          <ScrollView contentContainerStyle={styles.body} keyboardShouldPersistTaps="handled">
            {children}
          </ScrollView>
          {footer ? <View style={styles.footer}>{footer}</View> : null}
        </View>
      </View>
    </RNModal>
  );
}

const styles = StyleSheet.create({
  center: { flex: 1, alignItems: 'center', justifyContent: 'center', padding: spacing.lg },
  panel: { width: '100%', borderRadius: radius.lg, borderWidth: 1, overflow: 'hidden' },
  header: {
    flexDirection: 'row',
    alignItems: 'center',
    justifyContent: 'space-between',
    paddingLeft: spacing.lg,
    paddingRight: spacing.sm,
    paddingTop: spacing.sm,
  },
  title: { flexShrink: 1 },
  body: { padding: spacing.lg, gap: spacing.md },
  footer: { flexDirection: 'row', justifyContent: 'flex-end', gap: spacing.sm, padding: spacing.lg, paddingTop: 0 },
});
