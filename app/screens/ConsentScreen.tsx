import { useRoute, type RouteProp } from '@react-navigation/native';
import * as Linking from 'expo-linking';
import { useState } from 'react';
import { Platform, View, type ViewStyle } from 'react-native';

import { Button, Card, Checkbox, Screen, Text } from '../components';
import type { AppParamList } from '../navigators/routes';
import { errorMessage } from '../services/api/client';
import { useConsent, useConsentScreen } from '../services/api/programs';
import { toast } from '../state/toast';
import { type ThemedStyle, useThemedStyles } from '../theme';
import { formatMoney } from '../utils/format';
import { scopeLabel } from '../utils/scopes';
import { t } from '../i18n';

/**
 * The consent page of connected apps (contract §9): /oauth/authorize sends the
 * browser here with the app's request. It names the app, says in plain words
 * what it asks for, lets the customer pick the accounts it may see, and sends
 * the browser back to the app with a code, or with access_denied.
 */
export default function ConsentScreen() {
  const styles = useThemedStyles(themed);
  const params = useRoute<RouteProp<AppParamList, 'Consent'>>().params ?? {};
  const clientId = params.client_id ?? '';
  const scope = params.scope ?? '';
  const screen = useConsentScreen(clientId, scope);
  const consent = useConsent();
  const [picked, setPicked] = useState<string[]>([]);

  const answer = (approve: boolean) => {
    consent.mutate(
      {
        response_type: params.response_type ?? '',
        client_id: clientId,
        redirect_uri: params.redirect_uri ?? '',
        scope,
        state: params.state,
        nonce: params.nonce,
        code_challenge: params.code_challenge ?? '',
        code_challenge_method: params.code_challenge_method ?? '',
        account_ids: approve ? picked : [],
        approve,
      },
      {
        onSuccess: ({ redirect_to }) => {
          if (Platform.OS === 'web') window.location.assign(redirect_to);
          else void Linking.openURL(redirect_to);
        },
        onError: (err) => toast.error(errorMessage(err, t('The app could not be connected'))),
      },
    );
  };

  let body;
  if (!clientId || !scope) body = <Text testID="consent-invalid">{t('This link is not a request from an app.')}</Text>;
  else if (screen.isPending) body = <Text variant="muted">{t('Loading...')}</Text>;
  else if (screen.isError || !screen.data) body = <Text testID="consent-invalid">{errorMessage(screen.error, t('This app could not be found.'))}</Text>;
  else {
    const s = screen.data;
    const needsAccount = s.scopes.some((x) => x.scope !== 'openid');
    body = (
      <View style={styles.stack}>
        <Text variant="title" testID="consent-app">{t('{{app}} wants to connect to your Meridian account', { app: s.client_name })}</Text>
        <View role="list" aria-label={t('What the app may do')} style={styles.list}>
          {s.scopes.map((x) => (
            <Text key={x.scope} role="listitem" testID={`consent-scope-${x.scope}`}>
              {`• ${scopeLabel(x.scope, x.description)}`}
            </Text>
          ))}
        </View>
        {needsAccount ? (
          <View role="group" aria-label={t('Accounts the app may see')} style={styles.list}>
            <Text variant="label">{t('Which accounts may it see?')}</Text>
            {s.accounts.map((a) => (
              <Checkbox
                key={a.account_number}
                label={`${a.type_name} ${a.account_number} (${formatMoney(a.balance, a.currency)})`}
                checked={picked.includes(a.account_number)}
                onChange={(on) => setPicked((cur) => (on ? [...cur, a.account_number] : cur.filter((n) => n !== a.account_number)))}
                testID={`consent-account-${a.account_number}`}
              />
            ))}
          </View>
        ) : null}
        <Text variant="small">{t('You can disconnect it at any time under Security.')}</Text>
        <View style={styles.row}>
          <Button title={t('Allow')} disabled={(needsAccount && picked.length === 0) || consent.isPending} loading={consent.isPending} onPress={() => answer(true)} testID="consent-allow" />
          <Button title={t('Deny')} variant="outline" disabled={consent.isPending} onPress={() => answer(false)} testID="consent-deny" />
        </View>
      </View>
    );
  }
  return (
    <Screen title={t('Connect an app')} testID="screen-consent">
      <Card>{body}</Card>
    </Screen>
  );
}

const themed: ThemedStyle<{ stack: ViewStyle; list: ViewStyle; row: ViewStyle }> = ({ spacing }) => ({
  stack: { gap: spacing.lg },
  list: { gap: spacing.sm },
  row: { flexDirection: 'row', flexWrap: 'wrap', gap: spacing.sm },
});
