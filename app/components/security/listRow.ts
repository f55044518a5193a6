import type { ViewStyle } from 'react-native';

import type { ThemedStyle } from '../../theme';

/** One row of a Security list (a session, a token, an app): what it is on the left, its button on the right. */
export const listRow: ThemedStyle<{ item: ViewStyle; info: ViewStyle }> = ({ colors, spacing }) => ({
  item: {
    flexDirection: 'row',
    flexWrap: 'wrap',
    alignItems: 'center',
    justifyContent: 'space-between',
    gap: spacing.sm,
    paddingVertical: spacing.md,
    borderBottomWidth: 1,
    borderColor: colors.border,
  },
  info: { flexGrow: 1, flexShrink: 1, flexBasis: 220, gap: 2 },
});
