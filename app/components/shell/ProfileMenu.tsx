import type { PressState } from '../pressState';
import { Pressable, StyleSheet, View } from 'react-native';

import type { User } from '../../services/api/types';
import { layout, spacing, useTheme } from '../../theme';
import { Icon, type IconName } from '../Icon';
import { Popover } from '../Popover';
import { Text } from '../Text';
import { t } from '../../i18n';

export interface ProfileMenuProps {
  visible: boolean;
  user: User | null;
  onClose: () => void;
  onPasswordReset: () => void;
  /** Opens the Security page (two-factor sign-in, sessions). */
  onSecurity: () => void;
  onLogout: () => void;
}

/** 'My Account' menu (14rem): Password Reset, Security and Logout. */
export function ProfileMenu({ visible, user, onClose, onPasswordReset, onSecurity, onLogout }: ProfileMenuProps) {
  const { colors } = useTheme();
  return (
    <Popover
      visible={visible}
      onClose={onClose}
      top={layout.headerHeight - 4}
      right={8}
      width={layout.profileMenuWidth}
      testID="profile-menu"
      accessibilityLabel={t('My Account')}
    >
      <View style={[styles.header, { borderColor: colors.border }]}>
        <Text variant="label">{t('My Account')}</Text>
        {user ? (
          <Text variant="small" numberOfLines={1}>
            {user.email}
          </Text>
        ) : null}
      </View>
      <MenuItem icon="lock" label={t('Password Reset')} testID="menu-password-reset" onPress={onPasswordReset} />
      <MenuItem icon="shield" label={t('Security')} testID="menu-security" onPress={onSecurity} />
      <MenuItem icon="log-out" label={t('Logout')} testID="menu-logout" onPress={onLogout} />
    </Popover>
  );
}

function MenuItem({ icon, label, testID, onPress }: { icon: IconName; label: string; testID: string; onPress: () => void }) {
  const { colors } = useTheme();
  return (
    <Pressable
      testID={testID}
      role="menuitem"
      onPress={onPress}
      style={({ hovered }: PressState) => [styles.item, hovered && { backgroundColor: colors.surfaceMuted }]}
    >
      <Icon name={icon} size={16} />
      <Text variant="muted" style={{ color: colors.text }}>
        {label}
      </Text>
    </Pressable>
  );
}

const styles = StyleSheet.create({
  header: { paddingHorizontal: spacing.md, paddingVertical: spacing.sm, borderBottomWidth: 1, gap: 2 },
  item: { flexDirection: 'row', alignItems: 'center', gap: spacing.sm, paddingHorizontal: spacing.md, paddingVertical: 10 },
});
