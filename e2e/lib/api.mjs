// Direct API calls, for setting up scenarios (contract.md shapes).
let counter = 0;

/** A value unique to this run: emails and account numbers. */
export function unique(prefix = 'u') {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${process.pid.toString(36)}${counter}`;
}

/** 10 digits, unique enough for one fresh database. */
export function accountNumber() {
  counter += 1;
  return String(Date.now() % 1e8).padStart(8, '0') + String(counter).padStart(2, '0');
}

export function api(baseURL, token) {
  async function call(method, path, body) {
    const res = await fetch(`${baseURL}/api${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    if (!res.ok) throw new Error(`${method} /api${path} -> ${res.status} ${text.slice(0, 300)}`);
    return json;
  }
  return {
    get: (p) => call('GET', p),
    post: (p, b) => call('POST', p, b ?? {}),
    put: (p, b) => call('PUT', p, b),
  };
}

/** Registers and signs in a new customer; returns {email, password, token, user, client}. */
export async function newCustomer(baseURL, name = 'E2E Customer') {
  const email = `${unique('e2e')}@example.test`;
  const password = 'e2e-pass-12345';
  await api(baseURL).post('/auth/register', { full_name: name, email, phone_number: '+15550100', password });
  const { token, user } = await api(baseURL).post('/auth/login', { email, password });
  return { email, password, token, user, client: api(baseURL, token) };
}

/** Opens an account for a customer (first USD account type). */
export async function openAccount(customer, balance = 100) {
  const types = await customer.client.get('/user/account-types');
  const type = types.find((t) => t.currency === 'USD') ?? types[0];
  const number = accountNumber();
  const account = await customer.client.post('/user/accounts', {
    account_number: number,
    balance,
    account_type_id: type.id,
  });
  return account;
}

/** Opens an account of the first type matching `currency` (and `typeName` when given) with an opening balance. */
export async function openTypedAccount(customer, { currency, typeName, balance = 0 }) {
  const types = await customer.client.get('/user/account-types');
  const type = types.find((t) => t.currency === currency && (!typeName || t.type_name === typeName));
  if (!type) throw new Error(`no account type ${typeName ?? ''} in ${currency}: ${JSON.stringify(types)}`);
  return customer.client.post('/user/accounts', { account_number: accountNumber(), balance, account_type_id: type.id });
}

/** Signs someone in through the API: {token, user, client}. */
export async function signInApi(baseURL, { email, password }) {
  const { token, user } = await api(baseURL).post('/auth/login', { email, password });
  return { token, user, client: api(baseURL, token) };
}
