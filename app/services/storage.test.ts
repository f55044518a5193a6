import AsyncStorage from '@react-native-async-storage/async-storage';
import * as SecureStore from 'expo-secure-store';

import { storage } from './storage';

const secure = (SecureStore as unknown as { __store: Map<string, string> }).__store;

beforeEach(async () => {
  secure.clear();
  await AsyncStorage.clear();
});

describe('Android/iOS storage', () => {
  it('keeps the token and the user (name, email, phone) in the secure store, not in AsyncStorage', async () => {
    const user = JSON.stringify({ id: 2, full_name: 'Alice Doe', email: 'alice@meridian.test', phone_number: '+15550100' });
    await storage.setItem('token', 'tok');
    await storage.setItem('user', user);
    expect(secure.get('token')).toBe('tok');
    expect(secure.get('user')).toBe(user);
    expect(await AsyncStorage.getItem('user')).toBeNull();
    expect(await AsyncStorage.getItem('token')).toBeNull();
    expect(await storage.getItem('user')).toBe(user);
    await storage.removeItem('user');
    expect(secure.has('user')).toBe(false);
  });

  it('moves a user an earlier version left in AsyncStorage into the secure store', async () => {
    await AsyncStorage.setItem('user', '{"id":3}');
    expect(await storage.getItem('user')).toBe('{"id":3}');
    expect(secure.get('user')).toBe('{"id":3}');
    expect(await AsyncStorage.getItem('user')).toBeNull();
  });

  it('keeps the theme and the server address in AsyncStorage', async () => {
    await storage.setItem('vite-ui-theme', 'dark');
    await storage.setItem('server', 'http://10.0.2.2:8080');
    expect(await AsyncStorage.getItem('vite-ui-theme')).toBe('dark');
    expect(await AsyncStorage.getItem('server')).toBe('http://10.0.2.2:8080');
    expect(secure.size).toBe(0);
  });
});
