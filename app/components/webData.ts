/**
 * `data-*` attributes on the web (react-native-web's dataSet), for styling
 * hooks and end-to-end tests; ignored on Android/iOS.
 */
export function webData(data: Record<string, string>): object {
  return { dataSet: data };
}
