// Launch data: from Telegram's script when it loaded, else from the URL fragment Telegram opened
// the page with (the script is loaded async and may never arrive).

function fragmentParams() {
  return new URLSearchParams(location.hash.replace(/^#/, ''));
}

export function sdk() {
  return window.Telegram?.WebApp ?? null;
}

export function readLaunch() {
  const app = sdk();
  const fragment = fragmentParams();
  const initData = app?.initData || fragment.get('tgWebAppData') || '';
  let themeParams = null;
  if (app?.themeParams && Object.keys(app.themeParams).length) {
    themeParams = app.themeParams;
  } else if (fragment.get('tgWebAppThemeParams')) {
    try {
      themeParams = JSON.parse(fragment.get('tgWebAppThemeParams'));
    } catch {
      themeParams = null;
    }
  }
  let languageCode = '';
  try {
    const user = JSON.parse(new URLSearchParams(initData).get('user') || '{}');
    languageCode = user.language_code || '';
  } catch {
    languageCode = '';
  }
  return { initData, themeParams, languageCode };
}
