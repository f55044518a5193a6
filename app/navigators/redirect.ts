import type { AppParamList, AppRouteName } from './routes';

export interface RememberedRoute {
  name: AppRouteName;
  params?: AppParamList[AppRouteName];
}

/**
 * The page a signed-out visitor asked for, kept while they sign in
 * (spec §2: "the page they came from is remembered").
 */
let remembered: RememberedRoute | null = null;

export function rememberRoute(route: RememberedRoute | null): void {
  remembered = route;
}

/** Returns the remembered page once, then forgets it. */
export function takeRememberedRoute(): RememberedRoute | null {
  const r = remembered;
  remembered = null;
  return r;
}

export function peekRememberedRoute(): RememberedRoute | null {
  return remembered;
}

/** Set by Logout: the coming redirect to /auth must not remember the page. */
let explicitSignOut = false;

export function markExplicitSignOut(): void {
  explicitSignOut = true;
}

export function consumeExplicitSignOut(): boolean {
  const v = explicitSignOut;
  explicitSignOut = false;
  return v;
}
