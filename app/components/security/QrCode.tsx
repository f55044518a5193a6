import { View, type ViewStyle } from 'react-native';
import QRCode from 'react-native-qrcode-svg';

import { lightPalette, type ThemedStyle, useThemedStyles } from '../../theme';

export interface QrCodeProps {
  /** What the code holds, e.g. an otpauth:// URL. */
  value: string;
  /** The accessible name (the picture itself says nothing to a screen reader). */
  accessibilityLabel: string;
  size?: number;
  testID?: string;
}

/**
 * A QR code drawn in the app (react-native-svg; on the web through
 * react-native-web), so the secret never goes to an outside service. It stays
 * dark on light in both schemes, with a quiet zone: authenticator apps read
 * that reliably, inverted codes not always.
 */
export function QrCode({ value, accessibilityLabel, size = 184, testID }: QrCodeProps) {
  const styles = useThemedStyles(themed);
  return (
    <View testID={testID} role="img" aria-label={accessibilityLabel} style={styles.frame}>
      <QRCode value={value} size={size} color={lightPalette.text} backgroundColor={lightPalette.surface} quietZone={12} ecl="M" />
    </View>
  );
}

const themed: ThemedStyle<{ frame: ViewStyle }> = ({ colors, radius }) => ({
  frame: { alignSelf: 'flex-start', borderWidth: 1, borderColor: colors.border, borderRadius: radius.md, overflow: 'hidden' },
});
