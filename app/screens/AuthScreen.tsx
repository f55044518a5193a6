import { useNavigation } from '@react-navigation/native';
import type { NativeStackNavigationProp } from '@react-navigation/native-stack';
import { useEffect, useState } from 'react';
import { KeyboardAvoidingView, Platform, Pressable, ScrollView, StyleSheet, View } from 'react-native';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import { Button, Checkbox, Tabs, Text, TextField } from '../components';
import { TwoFactorStep } from '../components/auth/TwoFactorStep';
import { useServerField } from '../components/ServerField';
import { useTwoFactorSignIn } from '../hooks/useTwoFactorSignIn';
import type { RootParamList } from '../navigators/routes';
import { useLogin, useRegister } from '../services/api/auth';
import { errorMessage } from '../services/api/client';
import { sessionStore, useSession } from '../state/session';
import { toast } from '../state/toast';
import { radius, spacing, useTheme } from '../theme';
import { t } from '../i18n';

type Mode = 'login' | 'register';

interface RegisterForm {
  full_name: string;
  email: string;
  phone_number: string;
  password: string;
}

const EMPTY_REGISTER: RegisterForm = { full_name: '', email: '', phone_number: '', password: '' };

/** /auth: Login and Register tabs (spec §2). */
export default function AuthScreen() {
  const navigation = useNavigation<NativeStackNavigationProp<RootParamList>>();
  const { colors } = useTheme();
  const insets = useSafeAreaInsets();
  const token = useSession((s) => s.token);
  const hydrated = useSession((s) => s.hydrated);
  const [mode, setMode] = useState<Mode>('login');

  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [loginErrors, setLoginErrors] = useState<{ username?: string; password?: string }>({});

  // Android/iOS: the Server field (the web uses its own origin).
  const server = useServerField();
  const checkingServer = server.checking;

  const [form, setForm] = useState<RegisterForm>(EMPTY_REGISTER);
  const [registerErrors, setRegisterErrors] = useState<Partial<Record<keyof RegisterForm, string>>>({});

  // Two-factor sign-in on: the password step answers a challenge, the code step follows.
  const second = useTwoFactorSignIn();
  const login = useLogin({
    onSignedIn: () => toast.success(t('Login successful!')),
    onChallenge: (challenge) => {
      setPassword('');
      second.begin(challenge);
    },
    onError: (err) => toast.error(errorMessage(err, t('Invalid credentials'))),
  });
  const register = useRegister();

  // Signed in (just now, or already): go to the remembered page, or /.
  useEffect(() => {
    if (!hydrated || !token) return;
    const target = sessionStore.takeRememberedRoute();
    navigation.reset({
      index: 0,
      routes: [{ name: 'App', params: target ? { screen: target.name, params: target.params } : { screen: 'Dashboard' } }],
    });
  }, [hydrated, token, navigation]);

  const submitLogin = async () => {
    const errors: typeof loginErrors = {};
    if (!username.trim()) errors.username = t('Username is required');
    if (!password) errors.password = t('Password is required');
    setLoginErrors(errors);
    if (errors.username || errors.password || login.isPending || checkingServer) return;
    if (!(await server.ensure())) return;
    second.clearExpired();
    login.mutate({ email: username.trim(), password });
  };

  const submitRegister = async () => {
    const errors: typeof registerErrors = {};
    if (!form.full_name.trim()) errors.full_name = 'Full Name is required';
    if (!form.email.trim()) errors.email = t('Email is required');
    if (!form.phone_number.trim()) errors.phone_number = t('Phone is required');
    if (!form.password) errors.password = t('Password is required');
    setRegisterErrors(errors);
    if (Object.keys(errors).length > 0 || register.isPending || checkingServer) return;
    if (!(await server.ensure())) return;
    const payload = {
      full_name: form.full_name.trim(),
      email: form.email.trim(),
      phone_number: form.phone_number.trim(),
      password: form.password,
    };
    register.mutate(payload, {
      onSuccess: () => {
        toast.success(t('Registration successful!'));
        setUsername(payload.email);
        setPassword('');
        setForm(EMPTY_REGISTER);
        setMode('login');
      },
      onError: (err) => toast.error(errorMessage(err, t('Registration failed'))),
    });
  };

  const set = (key: keyof RegisterForm) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  return (
    <KeyboardAvoidingView
      style={[styles.flex, { backgroundColor: colors.background }]}
      behavior={Platform.OS === 'ios' ? 'padding' : undefined}
    >
      <ScrollView
        contentContainerStyle={[styles.center, { paddingTop: insets.top + spacing.xl, paddingBottom: insets.bottom + spacing.xl }]}
        keyboardShouldPersistTaps="handled"
      >
        <View testID="auth-screen" role="main" style={[styles.card, { backgroundColor: colors.surface, borderColor: colors.border }]}>
          <View style={styles.titles}>
            <Text variant="heading" testID="auth-heading" style={styles.centerText}>
              {t('Welcome to Meridian Bank')}
            </Text>
            <Text variant="muted" testID="auth-subtitle" style={styles.centerText}>
              {second.active ? t('Two-factor sign-in') : mode === 'login' ? t('Sign in to your account') : t('Create your account')}
            </Text>
          </View>

          {second.active ? (
            <TwoFactorStep
              code={second.code}
              onChangeCode={second.changeCode}
              error={second.codeError}
              verifying={second.verifying}
              onSubmit={second.submit}
              onBack={second.back}
            />
          ) : (
            <>
              <Tabs<Mode>
                accessibilityLabel={t('Sign in or register')}
                value={mode}
                onChange={setMode}
                tabs={[
                  { key: 'login', label: t('Login'), testID: 'tab-login' },
                  { key: 'register', label: t('Register'), testID: 'tab-register' },
                ]}
              />

              {server.field}

              {mode === 'login' ? (
                <View style={styles.form} testID="login-form">
                  {second.expired ? (
                    <Text role="alert" testID="login-expired" style={{ color: colors.danger }}>
                      {second.expired}
                    </Text>
                  ) : null}
                  <TextField
                    label={t('Username')}
                    testID="login-username"
                    value={username}
                    onChangeText={setUsername}
                    error={loginErrors.username}
                    autoCapitalize="none"
                    autoCorrect={false}
                    autoComplete="username"
                    keyboardType="email-address"
                    required
                    returnKeyType="next"
                  />
                  <TextField
                    label={t('Password')}
                    type="password"
                    testID="login-password"
                    value={password}
                    onChangeText={setPassword}
                    error={loginErrors.password}
                    autoComplete="current-password"
                    required
                    onSubmitEditing={() => void submitLogin()}
                    returnKeyType="go"
                  />
                  <View style={styles.row}>
                    <Checkbox label={t('Remember me')} checked={remember} onChange={setRemember} testID="remember-me" />
                    <Pressable role="link" testID="forgot-password" onPress={() => undefined}>
                      <Text variant="muted" style={{ color: colors.primary }}>
                        {t('Forgot your password')}
                      </Text>
                    </Pressable>
                  </View>
                  <Button
                    title={login.isPending ? t('Signing in...') : t('Login')}
                    testID="login-submit"
                    onPress={() => void submitLogin()}
                    loading={login.isPending || checkingServer}
                    fullWidth
                  />
                </View>
              ) : (
                <View style={styles.form} testID="register-form">
                  <TextField
                    label={t('Full Name')}
                    testID="register-fullname"
                    value={form.full_name}
                    onChangeText={set('full_name')}
                    error={registerErrors.full_name}
                    autoComplete="name"
                    required
                  />
                  <TextField
                    label={t('Email')}
                    type="email"
                    testID="register-email"
                    value={form.email}
                    onChangeText={set('email')}
                    error={registerErrors.email}
                    required
                  />
                  <TextField
                    label={t('Phone')}
                    type="tel"
                    testID="register-phone"
                    value={form.phone_number}
                    onChangeText={set('phone_number')}
                    error={registerErrors.phone_number}
                    required
                  />
                  <TextField
                    label={t('Password')}
                    type="password"
                    testID="register-password"
                    value={form.password}
                    onChangeText={set('password')}
                    error={registerErrors.password}
                    autoComplete="new-password"
                    required
                    onSubmitEditing={() => void submitRegister()}
                  />
                  <Button
                    title={register.isPending ? t('Registering...') : t('Register')}
                    testID="register-submit"
                    onPress={() => void submitRegister()}
                    loading={register.isPending || checkingServer}
                    fullWidth
                  />
                </View>
              )}
            </>
          )}
        </View>
      </ScrollView>
    </KeyboardAvoidingView>
  );
}

const styles = StyleSheet.create({
  flex: { flex: 1 },
  center: { flexGrow: 1, alignItems: 'center', justifyContent: 'center', paddingHorizontal: spacing.lg },
  card: { width: '100%', maxWidth: 420, borderWidth: 1, borderRadius: radius.lg, padding: spacing.xl, gap: spacing.lg },
  titles: { gap: spacing.xs },
  centerText: { textAlign: 'center' },
  form: { gap: spacing.md },
  row: { flexDirection: 'row', justifyContent: 'space-between', alignItems: 'center', flexWrap: 'wrap', gap: spacing.sm },
});
