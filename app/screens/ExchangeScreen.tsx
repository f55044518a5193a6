import { View, type TextStyle, type ViewStyle } from 'react-native';

import { Button, Card, Screen, Select, Text, TextField } from '../components';
import { RecipientName } from '../components/payees/RecipientName';
import { useErrorToast } from '../hooks/useErrorToast';
import { TYPED_TARGET, useExchangeForm } from '../hooks/useExchangeForm';
import { useRecipientName } from '../hooks/useRecipientName';
import { type ThemedStyle, useThemedStyles } from '../theme';
import { formatMoney, formatRate } from '../utils/format';
import { t } from '../i18n';
import { texts } from '../i18n/texts';

/**
 * Currency Exchange (contract §8): money from one of the customer's accounts
 * into an account in another currency, theirs or anyone's, at a quoted rate
 * held for 30 seconds.
 */
export default function ExchangeScreen() {
  const styles = useThemedStyles(themed);
  const x = useExchangeForm();
  useErrorToast(x.accountsError, x.accountsErrorUpdatedAt, texts.accountsFailed());
  const typedTarget = x.form.target === TYPED_TARGET;
  const recipientName = useRecipientName(typedTarget ? x.form.typed : '');

  const sourceOptions = x.accounts.map((a) => ({ label: `${a.account_number} · ${a.type_name} (${formatMoney(a.balance, a.currency)})`, value: a.account_number }));
  const targetOptions = [
    ...x.targets.map((a) => ({ label: `${a.account_number} · ${a.type_name} (${a.currency})`, value: a.account_number })),
    { label: t('Another account number'), value: TYPED_TARGET },
  ];
  const q = x.quote;

  return (
    <Screen title={t('Currency Exchange')} testID="screen-exchange">
      <Card title={t('Exchange money')} testID="exchange-form">
        <Text variant="muted">{t('Move money into an account in another currency. The rate is held for 30 seconds once quoted.')}</Text>
        <Select<string>
          label={t('From Account')}
          required
          placeholder={t('Select an account')}
          options={sourceOptions}
          value={x.form.from}
          onChange={(v) => x.set('from', v)}
          disabled={x.loadingAccounts}
          testID="exchange-from"
        />
        <Select<string>
          label={t('To Account')}
          required
          placeholder={t('Select an account')}
          options={targetOptions}
          value={x.form.target}
          onChange={(v) => x.set('target', v)}
          testID="exchange-to"
        />
        {typedTarget ? (
          <View style={styles.recipient}>
            <TextField
              label={t('Recipient Account Number')}
              required
              value={x.form.typed}
              onChangeText={(v) => x.set('typed', v)}
              autoCapitalize="characters"
              autoCorrect={false}
              testID="exchange-to-number"
            />
            <RecipientName name={recipientName} testID="exchange-recipient-name" />
          </View>
        ) : null}
        <TextField
          label={t('Amount')}
          required
          type="number"
          placeholder="0.00"
          hint={x.source ? t('In {{currency}}, the currency of the From account', { currency: x.source.currency }) : undefined}
          value={x.form.amount}
          onChangeText={(v) => x.set('amount', v)}
          testID="exchange-amount"
        />
        <TextField label={t('Note (optional)')} value={x.form.note} onChangeText={(v) => x.set('note', v)} maxLength={255} testID="exchange-note" />
        <Button title={t('Get quote')} icon="refresh-cw" loading={x.quoting} onPress={x.getQuote} testID="exchange-quote" style={styles.left} />
      </Card>

      {q ? (
        <Card title={t('Quote')} testID="exchange-quote-card">
          <View style={styles.line}>
            <Text variant="muted">{t('Rate')}</Text>
            <Text style={styles.value} testID="exchange-rate">
              {t('1 {{from}} = {{rate}} {{to}}', { from: q.from_currency, rate: formatRate(q.rate), to: q.to_currency })}
            </Text>
          </View>
          <View style={styles.line}>
            <Text variant="muted">{t('You send')}</Text>
            <Text style={styles.value} testID="exchange-send">
              {formatMoney(q.amount, q.from_currency)}
            </Text>
          </View>
          <View style={styles.line}>
            <Text variant="muted">{x.ownTarget ? t('You receive') : t('They receive')}</Text>
            <Text style={styles.value} testID="exchange-receive">
              {formatMoney(q.converted_amount, q.to_currency)}
            </Text>
          </View>
          {x.gone ? (
            <Text role="alert" style={styles.error} testID="exchange-error">
              {x.gone}
            </Text>
          ) : (
            <Text
              variant="muted"
              testID="exchange-countdown"
              // Read out once, when the quote expires (not every second).
              aria-live={x.expired ? 'polite' : 'off'}
              style={x.expired ? styles.error : undefined}
            >
              {x.expired ? t('This quote has expired.') : t('This rate is held for {{count}} more seconds.', { count: x.secondsLeft ?? 0 })}
            </Text>
          )}
          <View style={styles.actions}>
            {x.expired || x.gone ? (
              <Button title={t('Get a new quote')} variant="outline" icon="refresh-cw" loading={x.quoting} onPress={x.getQuote} testID="exchange-requote" />
            ) : null}
            <Button title={t('Confirm exchange')} loading={x.confirming} disabled={!x.canConfirm} onPress={x.confirm} testID="exchange-confirm" />
          </View>
        </Card>
      ) : null}
    </Screen>
  );
}

const themed: ThemedStyle<{ recipient: ViewStyle; left: ViewStyle; line: ViewStyle; value: TextStyle; error: TextStyle; actions: ViewStyle }> = ({ colors, spacing }) => ({
  recipient: { gap: spacing.xs },
  left: { alignSelf: 'flex-start' },
  line: { flexDirection: 'row', justifyContent: 'space-between', gap: spacing.md, flexWrap: 'wrap' },
  value: { fontWeight: '600' },
  error: { color: colors.danger },
  actions: { flexDirection: 'row', gap: spacing.sm, flexWrap: 'wrap', justifyContent: 'flex-end' },
});
