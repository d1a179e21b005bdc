// Telegram's theme parameters become the page's CSS variables; without them the page follows
// ?theme=dark|light, else the system's colour scheme (app.css holds both palettes).

const THEME_VARIABLES = {
  bg_color: '--bg',
  text_color: '--text',
  hint_color: '--hint',
  link_color: '--link',
  button_color: '--button',
  button_text_color: '--button-text',
  secondary_bg_color: '--secondary-bg',
  header_bg_color: '--header-bg',
  bottom_bar_bg_color: '--bottom-bar-bg',
  accent_text_color: '--accent',
  section_bg_color: '--section-bg',
  section_header_text_color: '--section-header',
  subtitle_text_color: '--subtitle',
  destructive_text_color: '--destructive',
};

function isDark(hex) {
  const m = /^#?([0-9a-f]{6})$/i.exec(String(hex || '').trim());
  if (!m) return null;
  const n = parseInt(m[1], 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
}

export function applyTheme(themeParams) {
  const root = document.documentElement;
  const forced = new URLSearchParams(location.search).get('theme');
  for (const variable of Object.values(THEME_VARIABLES)) root.style.removeProperty(variable);
  let dark = null;
  if (themeParams) {
    for (const [param, variable] of Object.entries(THEME_VARIABLES)) {
      if (themeParams[param]) root.style.setProperty(variable, themeParams[param]);
    }
    dark = isDark(themeParams.bg_color);
  }
  if (dark === null && (forced === 'dark' || forced === 'light')) dark = forced === 'dark';
  if (dark === null) dark = matchMedia('(prefers-color-scheme: dark)').matches;
  root.dataset.scheme = dark ? 'dark' : 'light';
}
