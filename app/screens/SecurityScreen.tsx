import { View, type TextStyle, type ViewStyle } from 'react-native';

import { Screen, Text } from '../components';
import { AccessTokensCard, ConnectedAppsCard, SessionsCard, TwoFactorCard } from '../components/security';
import { useTwoFactorGate } from '../state/twoFactorGate';
import { type ThemedStyle, useThemedStyles } from '../theme';
import { t } from '../i18n';

/** Security (from the profile menu): two-factor sign-in, the signed-in sessions (contract §6), access tokens and connected apps (§9). */
export default function SecurityScreen() {
  const styles = useThemedStyles(themed);
  // require_2fa_for_admins: why the admin was sent here.
  const required = useTwoFactorGate((s) => s.message);
  return (
    <Screen title={t('Security')} testID="screen-security">
      <View style={styles.stack}>
        {required ? (
          <View role="alert" testID="twofactor-required" style={styles.notice}>
            <Text style={styles.noticeText}>{required}</Text>
          </View>
        ) : null}
        <TwoFactorCard />
        <SessionsCard />
        <AccessTokensCard />
        <ConnectedAppsCard />
      </View>
    </Screen>
  );
}

const themed: ThemedStyle<{ stack: ViewStyle; notice: ViewStyle; noticeText: TextStyle }> = ({ colors, spacing, radius }) => ({
  stack: { gap: spacing.lg },
  notice: { padding: spacing.md, borderRadius: radius.md, backgroundColor: colors.warningMuted },
  noticeText: { color: colors.warning },
});
