import { useState } from 'react';
import { View, type ViewStyle } from 'react-native';

import { errorMessage } from '../../services/api/client';
import { CURRENCIES, useSetFxRate } from '../../services/api/fx';
import { toast } from '../../state/toast';
import { type ThemedStyle, useThemedStyles } from '../../theme';
import { formatRate } from '../../utils/format';
import { decimalForApi, fxRateError } from '../../utils/validation';
import { Button } from '../Button';
import { Select } from '../Select';
import { TextField } from '../TextField';
import { t } from '../../i18n';

export interface FxPair {
  base: string;
  quote: string;
  rate: string;
}

/**
 * Admin: sets the rate of a pair, 1 base = rate quote (PUT
 * /api/admin/fx-rates/{base}/{quote}); the inverse pair is derived by the
 * server. `initial` fills the form (a row's Edit).
 */
export function FxRateForm({ initial }: { initial: FxPair | null }) {
  const styles = useThemedStyles(themed);
  const setRate = useSetFxRate();
  const [pair, setPair] = useState<FxPair>(initial ?? { base: 'EUR', quote: 'USD', rate: '' });
  const [filled, setFilled] = useState(initial);
  // A row's Edit fills the form again (a new object each press).
  if (initial !== filled) {
    setFilled(initial);
    if (initial) setPair(initial);
  }
  const set = (key: keyof FxPair, value: string | null) => setPair((p) => ({ ...p, [key]: value ?? '' }));
  const options = CURRENCIES.map((c) => ({ label: c, value: c }));

  const submit = () => {
    if (setRate.isPending) return;
    const invalid = pair.base === pair.quote ? t('Choose two different currencies.') : fxRateError(pair.rate);
    if (invalid) {
      toast.error(invalid);
      return;
    }
    const rate = Number(decimalForApi(pair.rate));
    setRate.mutate(
      { base: pair.base, quote: pair.quote, rate },
      {
        onSuccess: (row) => {
          toast.success(t('Rate set: 1 {{base}} = {{rate}} {{quote}}', { base: row.base, quote: row.quote, rate: formatRate(row.rate) }));
          setPair((p) => ({ ...p, rate: '' }));
        },
        onError: (err) => toast.error(errorMessage(err, t('Failed to set the rate'))),
      },
    );
  };

  return (
    <View style={styles.row} testID="fx-rate-form">
      <View style={styles.currency}>
        <Select<string> label={t('Base')} required options={options} value={pair.base} onChange={(v) => set('base', v)} testID="fx-rate-base" />
      </View>
      <View style={styles.currency}>
        <Select<string> label={t('Quote currency')} required options={options} value={pair.quote} onChange={(v) => set('quote', v)} testID="fx-rate-quote" />
      </View>
      <TextField
        label={t('Rate')}
        required
        type="number"
        placeholder="1.0842"
        hint={t('1 base = rate × quote currency, up to 8 decimals')}
        value={pair.rate}
        onChangeText={(v) => set('rate', v)}
        onSubmitEditing={submit}
        containerStyle={styles.rate}
        testID="fx-rate-value"
      />
      <Button title={t('Set rate')} loading={setRate.isPending} onPress={submit} testID="fx-rate-submit" style={styles.submit} />
    </View>
  );
}

const themed: ThemedStyle<{ row: ViewStyle; currency: ViewStyle; rate: ViewStyle; submit: ViewStyle }> = ({ spacing }) => ({
  row: { flexDirection: 'row', flexWrap: 'wrap', alignItems: 'flex-start', gap: spacing.md },
  currency: { minWidth: 120, flexGrow: 0 },
  rate: { flexGrow: 1, flexBasis: 160, maxWidth: 280 },
  submit: { marginTop: 26 },
});
