import AsyncStorage from '@react-native-async-storage/async-storage';
import * as SecureStore from 'expo-secure-store';

import { STORAGE_KEYS, type KeyValueStorage } from './storage.types';

export { STORAGE_KEYS } from './storage.types';
export type { KeyValueStorage } from './storage.types';

/** Keys that hold secrets go to the platform's secure store. */
const SECURE_KEYS = new Set<string>([STORAGE_KEYS.token]);

/** Android / iOS: the token in expo-secure-store, everything else in AsyncStorage. */
export const storage: KeyValueStorage = {
  async getItem(key) {
    if (SECURE_KEYS.has(key)) return SecureStore.getItemAsync(key);
    return AsyncStorage.getItem(key);
  },
  async setItem(key, value) {
    if (SECURE_KEYS.has(key)) return SecureStore.setItemAsync(key, value);
    return AsyncStorage.setItem(key, value);
  },
  async removeItem(key) {
    if (SECURE_KEYS.has(key)) return SecureStore.deleteItemAsync(key);
    return AsyncStorage.removeItem(key);
  },
  getItemSync() {
    return undefined;
  },
};
