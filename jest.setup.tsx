// Deterministic dates in every test (relative times, full dates).
process.env.TZ = 'UTC';

jest.mock('@react-native-async-storage/async-storage', () =>
  require('@react-native-async-storage/async-storage/jest/async-storage-mock'),
);

// expo-secure-store has no native module under Jest: an in-memory stand-in.
jest.mock('expo-secure-store', () => {
  const store = new Map<string, string>();
  return {
    getItemAsync: jest.fn(async (key: string) => (store.has(key) ? store.get(key)! : null)),
    setItemAsync: jest.fn(async (key: string, value: string) => {
      store.set(key, value);
    }),
    deleteItemAsync: jest.fn(async (key: string) => {
      store.delete(key);
    }),
    __store: store,
  };
});

// Icon fonts load asynchronously (state updates outside act); a plain stand-in suffices in tests.
jest.mock('@expo/vector-icons/Feather', () => {
  const { View } = require('react-native');
  const Feather = ({ name }: { name: string }) => <View testID={`icon-${name}`} />;
  return { __esModule: true, default: Feather };
});

// NetInfo has no native module under Jest: the library's own mock (always online).
jest.mock('@react-native-community/netinfo', () => require('@react-native-community/netinfo/jest/netinfo-mock.js'));

// expo-crypto's native randomUUID: Node's, under Jest.
jest.mock('expo-crypto', () => ({ randomUUID: jest.fn(() => require('crypto').randomUUID()) }));

// The date picker's Android dialogs are TurboModules, absent under Jest (its
// iOS component renders as a plain host view): inert stand-ins. Tests drive
// DateTimePickerAndroid.open themselves (components/DateField.test.tsx).
for (const spec of ['NativeModuleDatePicker', 'NativeModuleTimePicker', 'NativeModuleMaterialDatePicker', 'NativeModuleMaterialTimePicker']) {
  jest.mock(`@react-native-community/datetimepicker/src/specs/${spec}`, () => ({
    __esModule: true,
    default: { open: jest.fn(async () => ({ action: 'dismissedAction' })), dismiss: jest.fn(async () => true) },
  }));
}
