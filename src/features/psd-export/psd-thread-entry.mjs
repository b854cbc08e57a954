// Worker threads start from JavaScript: register tsx here, then load the TypeScript entry.
import { register } from 'tsx/esm/api';

register();
await import('./psd-thread.ts');
