import AsyncStorage from '@react-native-async-storage/async-storage';
import * as SecureStore from 'expo-secure-store';

import { STORAGE_KEYS, type KeyValueStorage } from './storage.types';

export { STORAGE_KEYS } from './storage.types';
export type { KeyValueStorage } from './storage.types';

/** The session is personal data: the token and the user (name, email, phone) go to the secure store. */
const SECURE_KEYS = new Set<string>([STORAGE_KEYS.token, STORAGE_KEYS.user]);

/**
 * Android / iOS: the session in expo-secure-store (Keychain / Keystore),
 * everything else (theme, server address) in AsyncStorage. A user object an
 * earlier version left in AsyncStorage moves to the secure store on first read.
 */
export const storage: KeyValueStorage = {
  async getItem(key) {
    if (!SECURE_KEYS.has(key)) return AsyncStorage.getItem(key);
    const secure = await SecureStore.getItemAsync(key);
    if (secure !== null) return secure;
    const legacy = await AsyncStorage.getItem(key);
    if (legacy !== null) {
      await SecureStore.setItemAsync(key, legacy);
      await AsyncStorage.removeItem(key);
    }
    return legacy;
  },
  async setItem(key, value) {
    if (SECURE_KEYS.has(key)) return SecureStore.setItemAsync(key, value);
    return AsyncStorage.setItem(key, value);
  },
  async removeItem(key) {
    if (!SECURE_KEYS.has(key)) return AsyncStorage.removeItem(key);
    await Promise.all([SecureStore.deleteItemAsync(key), AsyncStorage.removeItem(key)]);
  },
  getItemSync() {
    return undefined;
  },
};
