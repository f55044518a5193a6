import * as LocalAuthentication from 'expo-local-authentication';

/**
 * The device's own check of its owner: Face ID / Touch ID / a fingerprint,
 * or the device passcode when the person chooses it (expo-local-authentication).
 */
export interface Biometrics {
  /** Whether the device can check its owner at all (hardware and something enrolled). */
  available(): Promise<boolean>;
  /** Asks; true when the owner passed. */
  authenticate(prompt: string, cancelLabel: string): Promise<boolean>;
}

export const deviceBiometrics: Biometrics = {
  async available() {
    try {
      return (await LocalAuthentication.hasHardwareAsync()) && (await LocalAuthentication.isEnrolledAsync());
    } catch {
      return false;
    }
  },
  async authenticate(prompt, cancelLabel) {
    try {
      const result = await LocalAuthentication.authenticateAsync({ promptMessage: prompt, cancelLabel, disableDeviceFallback: false });
      return result.success;
    } catch {
      return false;
    }
  },
};
