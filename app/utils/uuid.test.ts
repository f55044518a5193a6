import { randomUUID } from 'expo-crypto';

import { uuid } from './uuid';
import { uuid as webUuid } from './uuid.web';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it('Android/iOS: expo-crypto', () => {
  const id = uuid();
  expect(randomUUID).toHaveBeenCalledTimes(1);
  expect(id).toMatch(V4);
});

it('web: getRandomValues, shaped as a v4 UUID, never twice the same', () => {
  const ids = new Set(Array.from({ length: 200 }, () => webUuid()));
  expect(ids.size).toBe(200);
  for (const id of ids) expect(id).toMatch(V4);
});
