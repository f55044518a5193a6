import type { PressableStateCallbackType } from 'react-native';

/** Pressable's style-callback state; react-native-web adds `hovered`. */
export type PressState = PressableStateCallbackType & { hovered?: boolean };
