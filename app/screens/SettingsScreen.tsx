import { Screen } from '../components';

/** Settings: only its heading (spec §2). */
export default function SettingsScreen() {
  return <Screen title="Settings" testID="screen-settings" />;
}
