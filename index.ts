import { registerRootComponent } from 'expo';

import App from './app/App';

// registerRootComponent calls AppRegistry.registerComponent('main', () => App)
// and mounts the app on the web (the #root element of index.html).
registerRootComponent(App);
