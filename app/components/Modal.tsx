import type { ReactNode } from 'react';
import {
  KeyboardAvoidingView,
  Modal as RNModal,
  Platform,
  Pressable,
  ScrollView,
  StyleSheet,
  View,
  useWindowDimensions,
} from 'react-native';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import { useDismissKey } from '../hooks/useDismissKey';
import { radius, spacing, useTheme } from '../theme';
import { IconButton } from './IconButton';
import { Text } from './Text';
import { Toaster } from './Toaster';
import { t } from '../i18n';

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

/**
 * A closable dialog over a dimmed backdrop (backdrop click, the X button or
 * Escape/back close it).
 *
 * On Android and iOS a Modal is a window of its own: it carries its own
 * toast host (so a toast raised while the form is open shows above it) and
 * moves out of the keyboard's way (the body scrolls; taps on buttons go
 * through while the keyboard is up).
 */
export function Modal({ visible, onClose, title, children, footer, testID, maxWidth = 480 }: ModalProps) {
  const { colors } = useTheme();
  const { height } = useWindowDimensions();
  const insets = useSafeAreaInsets();
  // The web: Escape (see useDismissKey.web); Android: the back button reaches onRequestClose.
  useDismissKey(Platform.OS === 'web' && visible, onClose);
  return (
    <RNModal
      visible={visible}
      transparent
      animationType="fade"
      onRequestClose={() => visible && onClose()}
      statusBarTranslucent
      navigationBarTranslucent
      // The web: react-native-web draws its own role="dialog" around the content; it carries the title too.
      {...({ 'aria-label': title } as object)}
    >
      <KeyboardAvoidingView
        // Android draws edge to edge (SDK 57): the window is not resized for the keyboard, so pad on both.
        behavior={Platform.OS === 'web' ? undefined : 'padding'}
        style={styles.fill}
      >
        {/*
          The dialog is the whole layer: backdrop, panel and toasts. (On iOS an
          aria-modal view hides its siblings from VoiceOver, so the toasts must
          be inside it, not beside it.)
        */}
        <View
          testID={testID ? `${testID}-layer` : undefined}
          role="dialog"
          aria-modal
          aria-label={title}
          style={[
            styles.center,
            {
              paddingTop: insets.top + spacing.lg,
              paddingBottom: insets.bottom + spacing.lg,
              paddingLeft: insets.left + spacing.lg,
              paddingRight: insets.right + spacing.lg,
            },
          ]}
        >
          {/*
            The backdrop closes on a click or tap, but it is no control of its own:
            Tab goes to the dialog's X first, and screen readers skip it (the X,
            Escape and the back button close the dialog).
          */}
          <Pressable
            testID={testID ? `${testID}-backdrop` : undefined}
            focusable={false}
            tabIndex={-1}
            accessible={false}
            aria-hidden
            importantForAccessibility="no-hide-descendants"
            style={[StyleSheet.absoluteFill, { backgroundColor: colors.backdrop }]}
            onPress={onClose}
          />
          <View
            testID={testID}
            style={[
              styles.panel,
              { backgroundColor: colors.surface, borderColor: colors.border, maxWidth, maxHeight: height * 0.9 },
            ]}
          >
            <View style={styles.header}>
              <Text variant="subtitle" role="heading" aria-level={2} style={styles.title}>
                {title}
              </Text>
              <IconButton icon="x" accessibilityLabel={t('Close')} onPress={onClose} />
            </View>
            <ScrollView
              contentContainerStyle={styles.body}
              keyboardShouldPersistTaps="handled"
              keyboardDismissMode={Platform.OS === 'ios' ? 'interactive' : 'on-drag'}
            >
              {children}
            </ScrollView>
            {footer ? <View style={styles.footer}>{footer}</View> : null}
          </View>
          {visible ? <Toaster /> : null}
        </View>
      </KeyboardAvoidingView>
    </RNModal>
  );
}

const styles = StyleSheet.create({
  fill: { flex: 1 },
  center: { flex: 1, alignItems: 'center', justifyContent: 'center' },
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
  footer: { flexDirection: 'row', justifyContent: 'flex-end', gap: spacing.sm, padding: spacing.lg, paddingTop: 0, flexWrap: 'wrap' },
});
