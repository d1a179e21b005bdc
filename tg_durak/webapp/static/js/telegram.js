// Telegram's WebApp object, when its script loaded; every call is a no-op without it.
import { sdk } from './launch.js';

let backHandler = null;

function onBackClicked() {
  if (backHandler) backHandler();
}

export function whenSdkLoads(callback) {
  if (sdk()) {
    callback(sdk());
    return;
  }
  const script = document.querySelector('script[src*="telegram-web-app.js"]');
  script?.addEventListener('load', () => sdk() && callback(sdk()), { once: true });
}

export function startSdk(app, { onTheme, onViewport }) {
  try {
    app.ready();
    app.expand();
    // a card dragged downwards must not pull the app closed
    if (app.isVersionAtLeast?.('7.7')) app.disableVerticalSwipes();
    app.onEvent('themeChanged', () => onTheme(app.themeParams));
    app.onEvent('viewportChanged', () => onViewport(app));
    app.BackButton?.onClick(onBackClicked);
    onViewport(app);
  } catch (error) {
    console.warn('Telegram WebApp', error);
  }
}

export function hapticAccepted() {
  sdk()?.HapticFeedback?.impactOccurred?.('light');
}

export function hapticRefused() {
  sdk()?.HapticFeedback?.notificationOccurred?.('error');
}

// His turn is running out.
export function hapticWarning() {
  sdk()?.HapticFeedback?.notificationOccurred?.('warning');
}

// The Back button closes an open chooser; null hides it.
export function setBackHandler(handler) {
  const wasShown = Boolean(backHandler);
  backHandler = handler;
  const button = sdk()?.BackButton;
  if (!button || wasShown === Boolean(handler)) return;
  if (handler) button.show();
  else button.hide();
}
