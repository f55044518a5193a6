import { useRef, useState } from 'react';
import { Pressable, StyleSheet, View } from 'react-native';

import { spacing, useTheme } from '../theme';
import { Button } from './Button';
import { IconButton } from './IconButton';
import type { IconName } from './Icon';
import { Popover, type AnchorRect } from './Popover';
import type { PressState } from './pressState';
import { Text } from './Text';

export interface ActionMenuItem {
  label: string;
  onPress: () => void;
  testID?: string;
  /** Drawn in the danger colour (e.g. Decline). */
  destructive?: boolean;
}

export interface ActionMenuProps {
  /** The trigger's accessible name, e.g. 'Actions for request 31'. */
  accessibilityLabel: string;
  items: ActionMenuItem[];
  icon?: IconName;
  /** A visible label beside the icon ("Deposit / Withdraw"): an icon alone does not say what the menu holds. */
  label?: string;
  disabled?: boolean;
  testID?: string;
}

const MENU_WIDTH = 160;

/**
 * A "⋯" button that opens a small menu below it. The menu closes on a choice,
 * an outside click or tap, Escape on the web and the back button on Android.
 */
export function ActionMenu({ accessibilityLabel, items, icon = 'more-horizontal', label, disabled, testID }: ActionMenuProps) {
  const { colors } = useTheme();
  const trigger = useRef<View>(null);
  const [open, setOpen] = useState(false);
  const [anchor, setAnchor] = useState<AnchorRect | null>(null);

  const show = () => {
    setAnchor(null);
    setOpen(true);
    trigger.current?.measureInWindow((x, y, width, height) => setAnchor({ x, y, width, height }));
  };
  const close = () => setOpen(false);
  const triggerProps = {
    accessibilityLabel,
    'aria-expanded': open,
    'aria-haspopup': 'menu' as const,
    testID,
    disabled,
    onPress: () => (open ? close() : show()),
  };

  return (
    <View ref={trigger} collapsable={false} style={styles.trigger}>
      {label ? <Button title={label} icon={icon} variant="outline" size="sm" {...triggerProps} /> : <IconButton icon={icon} {...triggerProps} />}
      <Popover visible={open} onClose={close} anchor={anchor} width={MENU_WIDTH} testID={testID ? `${testID}-popover` : undefined} accessibilityLabel={accessibilityLabel}>
        {items.map((item) => (
          <Pressable
            key={item.label}
            testID={item.testID}
            role="menuitem"
            onPress={() => {
              close();
              item.onPress();
            }}
            style={({ hovered, pressed }: PressState) => [styles.item, (hovered || pressed) && { backgroundColor: colors.surfaceMuted }]}
          >
            <Text style={{ color: item.destructive ? colors.danger : colors.text }}>{item.label}</Text>
          </Pressable>
        ))}
      </Popover>
    </View>
  );
}

const styles = StyleSheet.create({
  trigger: { alignSelf: 'flex-start' },
  item: { paddingHorizontal: spacing.md, paddingVertical: spacing.md },
});
