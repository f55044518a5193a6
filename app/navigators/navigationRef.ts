import { createNavigationContainerRef } from '@react-navigation/native';

import type { RootParamList } from './routes';

/** Navigation from outside components (rarely needed; prefer useNavigation). */
export const navigationRef = createNavigationContainerRef<RootParamList>();
