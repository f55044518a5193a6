import type { TextStyle } from 'react-native';

import { useThemed, type ThemedStyle } from '../../theme';
import { Text } from '../Text';

/** The holder's name under a recipient field (from the lookup or the saved payee). */
export function RecipientName({ name, testID }: { name: string; testID: string }) {
  const themed = useThemed();
  if (!name) return null;
  return (
    <Text variant="muted" testID={testID} accessibilityLiveRegion="polite" style={themed($name)}>
      {name}
    </Text>
  );
}

const $name: ThemedStyle<TextStyle> = ({ colors }) => ({ color: colors.success });
