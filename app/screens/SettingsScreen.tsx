import { Screen } from '../components';
import { t } from '../i18n';

/** Settings: only its heading (spec §2). */
export default function SettingsScreen() {
  return <Screen title={t('Settings')} testID="screen-settings" />;
}
