import { configure } from '@testing-library/react-native';

// findBy*/waitFor: lazy screens are required on first use, which takes a moment on a cold cache.
configure({ asyncUtilTimeout: 5000 });
