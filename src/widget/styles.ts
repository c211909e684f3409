// The widget's stylesheet (inside its shadow root). Colours, radius and font are CSS custom
// properties: an embedding page restyles it by setting --mc-* on the element; theme="dark" or
// "light" forces a theme, otherwise the visitor's prefers-color-scheme decides.
const light = `--mc-bg:#fff;--mc-fg:#1d2330;--mc-muted:#5b6475;--mc-border:#d9dde5;--mc-surface:#f4f6f9;--mc-accent:#2458d6;--mc-accent-fg:#fff;--mc-mine:#e3ebff;--mc-danger:#b42318;`;
const dark = `--mc-bg:#15181e;--mc-fg:#e6e9ef;--mc-muted:#9aa3b2;--mc-border:#323845;--mc-surface:#1f242d;--mc-accent:#7aa2ff;--mc-accent-fg:#0d1320;--mc-mine:#27365c;--mc-danger:#ff8a80;`;

export const css = `
:host{${light}--mc-radius:10px;--mc-font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;display:block;color:var(--mc-fg);background:var(--mc-bg);font:15px/1.45 var(--mc-font)}
:host([theme=dark]){${dark}}
@media (prefers-color-scheme:dark){:host(:not([theme=light])){${dark}}}
*{box-sizing:border-box}
section{padding:16px}
h2{font-size:1.15em;margin:0 0 12px;display:flex;gap:8px;align-items:baseline}
.status{font-size:.8em;color:var(--mc-muted);font-weight:normal}
ol{list-style:none;margin:0;padding:0}
.replies{margin:8px 0 0 20px;padding-left:12px;border-left:2px solid var(--mc-border)}
article{padding:10px 0}
li+li>article{border-top:1px solid var(--mc-border)}
.replies li+li>article{border-top:0}
header{display:flex;align-items:center;gap:8px;flex-wrap:wrap}
.avatar{width:32px;height:32px;border-radius:50%;flex:none;object-fit:cover;display:inline-grid;place-items:center;background:var(--mc-accent);color:var(--mc-accent-fg);font-weight:600}
.name{font-weight:600}
.badge{font-size:.72em;border:1px solid var(--mc-accent);color:var(--mc-accent);border-radius:999px;padding:0 6px}
time,.meta{color:var(--mc-muted);font-size:.85em}
.body{margin:6px 0 0 40px;white-space:pre-wrap;overflow-wrap:anywhere}
.body img.media{max-width:min(100%,320px);border-radius:var(--mc-radius);display:block}
.body img.sticker{width:128px;height:128px;object-fit:contain}
.body video,.body audio{max-width:100%}
.deleted{font-style:italic;color:var(--mc-muted)}
.poll{border:1px solid var(--mc-border);border-radius:var(--mc-radius);padding:8px;white-space:normal}
.poll button{display:flex;justify-content:space-between;width:100%;margin-top:6px;text-align:left}
.row{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:6px 0 0 40px}
button{font:inherit;color:inherit;background:var(--mc-surface);border:1px solid var(--mc-border);border-radius:999px;padding:2px 10px;cursor:pointer}
button:hover{border-color:var(--mc-accent)}
button[aria-pressed=true]{background:var(--mc-mine);border-color:var(--mc-accent)}
button.link{background:none;border:0;color:var(--mc-muted);padding:2px 4px}
button.link:hover{color:var(--mc-accent);text-decoration:underline}
button.primary{background:var(--mc-accent);color:var(--mc-accent-fg);border-color:var(--mc-accent);padding:6px 16px}
button:disabled{opacity:.6;cursor:default}
:focus-visible{outline:3px solid var(--mc-accent);outline-offset:2px}
form{display:grid;gap:8px;margin-top:12px}
.reply-form{margin-left:40px}
label{font-size:.85em;color:var(--mc-muted);display:grid;gap:4px}
input,textarea{font:inherit;color:var(--mc-fg);background:var(--mc-bg);border:1px solid var(--mc-border);border-radius:var(--mc-radius);padding:8px}
textarea{min-height:4.5em;resize:vertical}
.actions{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.palette{display:inline-flex;gap:4px}
.stickers{display:flex;gap:6px;flex-wrap:wrap}
.stickers img{width:48px;height:48px;object-fit:contain}
.typing{min-height:1.4em;color:var(--mc-muted);font-size:.85em;margin:8px 0 0}
.error{color:var(--mc-danger)}
.more{margin-top:12px}
a{color:var(--mc-accent)}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
