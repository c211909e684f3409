// The widget's stylesheet (inside its shadow root). Colours, radius and font are CSS custom
// properties: an embedding page restyles it by setting --mc-* on the element; theme="dark" or
// "light" forces a theme, otherwise the visitor's prefers-color-scheme decides.
// Layout uses logical properties (inline-start, not left), so a right-to-left language mirrors it.
/** The themes' custom properties (their contrast ratios are checked by test/unit/widget-contrast.test.ts). */
export const themes = {
  light: {
    "--mc-bg": "#fff",
    "--mc-fg": "#1d2330",
    "--mc-muted": "#5b6475",
    "--mc-border": "#d9dde5",
    "--mc-surface": "#f4f6f9",
    "--mc-accent": "#2458d6",
    "--mc-accent-fg": "#fff",
    "--mc-mine": "#e3ebff",
    "--mc-highlight": "#fff4c2",
    "--mc-danger": "#b42318",
  },
  dark: {
    "--mc-bg": "#15181e",
    "--mc-fg": "#e6e9ef",
    "--mc-muted": "#9aa3b2",
    "--mc-border": "#323845",
    "--mc-surface": "#1f242d",
    "--mc-accent": "#7aa2ff",
    "--mc-accent-fg": "#0d1320",
    "--mc-mine": "#27365c",
    "--mc-highlight": "#3d3517",
    "--mc-danger": "#ff8a80",
  },
};
const declarations = (theme: Record<string, string>) =>
  Object.entries(theme)
    .map(([name, value]) => `${name}:${value};`)
    .join("");
const light = declarations(themes.light);
const dark = declarations(themes.dark);

export const css = `
:host{${light}--mc-radius:10px;--mc-font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;display:block;color:var(--mc-fg);background:var(--mc-bg);font:15px/1.45 var(--mc-font)}
:host([theme=dark]){${dark}}
@media (prefers-color-scheme:dark){:host(:not([theme=light])){${dark}}}
*{box-sizing:border-box}
section{padding:16px}
h2{font-size:1.15em;margin:0 0 12px;display:flex;gap:8px;align-items:baseline}
.status{font-size:.8em;color:var(--mc-muted);font-weight:normal}
ol{list-style:none;margin:0;padding:0}
.replies{margin-block-start:8px;margin-inline-start:20px;padding-inline-start:12px;border-inline-start:2px solid var(--mc-border)}
article{padding:10px 0}
li+li>article{border-top:1px solid var(--mc-border)}
.replies li+li>article{border-top:0}
header{display:flex;align-items:center;gap:8px;flex-wrap:wrap}
.avatar{width:32px;height:32px;border-radius:50%;flex:none;object-fit:cover;display:inline-grid;place-items:center;background:var(--mc-accent);color:var(--mc-accent-fg);font-weight:600}
.name{font-weight:600}
.badge{font-size:.72em;border:1px solid var(--mc-accent);color:var(--mc-accent);border-radius:999px;padding:0 6px}
time,.meta{color:var(--mc-muted);font-size:.85em}
.body{margin-block-start:6px;margin-inline-start:40px;white-space:pre-wrap;overflow-wrap:anywhere}
.body.html{white-space:normal}
.body.html>:first-child{margin-block-start:0}.body.html>:last-child{margin-block-end:0}
.body blockquote{margin-inline:0;padding-inline-start:10px;border-inline-start:3px solid var(--mc-border);color:var(--mc-muted)}
.body code{font-family:ui-monospace,monospace;background:var(--mc-surface);border-radius:4px;padding:0 3px}
.body pre{background:var(--mc-surface);border-radius:var(--mc-radius);padding:8px;overflow-x:auto}
.body pre code{padding:0}
.body ul,.body ol{padding-inline-start:24px}
.body span[data-mx-spoiler]{background:var(--mc-fg);color:var(--mc-fg)}.body span[data-mx-spoiler]:hover{background:none}
.body img.media{max-width:min(100%,320px);border-radius:var(--mc-radius);display:block}
.body img.sticker{width:128px;height:128px;object-fit:contain}
.body video,.body audio{max-width:100%}
.deleted{font-style:italic;color:var(--mc-muted)}
.poll{border:1px solid var(--mc-border);border-radius:var(--mc-radius);padding:8px;white-space:normal}
.poll button{display:flex;justify-content:space-between;width:100%;margin-block-start:6px;text-align:start}
.row{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-block-start:6px;margin-inline-start:40px}
button{font:inherit;color:inherit;background:var(--mc-surface);border:1px solid var(--mc-border);border-radius:999px;padding:2px 10px;cursor:pointer}
button:hover{border-color:var(--mc-accent)}
button[aria-pressed=true]{background:var(--mc-mine);border-color:var(--mc-accent)}
button.link{background:none;border:0;color:var(--mc-muted);padding:2px 4px}
button.link:hover{color:var(--mc-accent);text-decoration:underline}
button.primary{background:var(--mc-accent);color:var(--mc-accent-fg);border-color:var(--mc-accent);padding:6px 16px}
button:disabled{opacity:.6;cursor:default}
:focus-visible{outline:3px solid var(--mc-accent);outline-offset:2px}
form{display:grid;gap:8px;margin-top:12px}
.reply-form{margin-inline-start:40px}
label{font-size:.85em;color:var(--mc-muted);display:grid;gap:4px}
input,textarea{font:inherit;color:var(--mc-fg);background:var(--mc-bg);border:1px solid var(--mc-border);border-radius:var(--mc-radius);padding:8px}
textarea{min-height:4.5em;resize:vertical}
.actions{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.palette{display:inline-flex;gap:4px}
.stickers{display:flex;gap:6px;flex-wrap:wrap}
.stickers img{width:48px;height:48px;object-fit:contain}
.typing{min-height:1.4em;color:var(--mc-muted);font-size:.85em;margin:8px 0 0}
.error{color:var(--mc-danger)}
.pending{list-style:none;padding:0;margin:8px 0 0;font-size:.9em}.pending li{padding:6px 8px;border:1px dashed var(--mc-border);border-radius:var(--mc-radius);margin-top:4px;white-space:pre-wrap;overflow-wrap:anywhere}
.closed{padding:8px;border-radius:var(--mc-radius);background:var(--mc-surface);color:var(--mc-muted)}
.more{margin-block-start:12px}
.toolbar{display:flex;gap:8px;align-items:center;justify-content:flex-end;flex-wrap:wrap}
.toolbar label{display:flex;gap:6px;align-items:center}
select{font:inherit;color:var(--mc-fg);background:var(--mc-bg);border:1px solid var(--mc-border);border-radius:var(--mc-radius);padding:2px 6px}
.hint{font-size:.8em;color:var(--mc-muted);margin:0}
a.when{color:var(--mc-muted);text-decoration:none}a.when:hover{text-decoration:underline}
article:focus{outline:none}article:focus-visible{outline:3px solid var(--mc-accent)}
article.target{background:var(--mc-highlight);border-radius:var(--mc-radius);animation:mc-flash 1.5s ease-out}
@keyframes mc-flash{from{box-shadow:0 0 0 4px var(--mc-accent)}to{box-shadow:0 0 0 0 transparent}}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important;scroll-behavior:auto!important}}
a{color:var(--mc-accent)}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
