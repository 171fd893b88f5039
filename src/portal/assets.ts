import { createHash } from 'node:crypto';

/**
 * The portal's stylesheet and its one script, served by Coffer itself (no CDN: it works
 * offline). The script is progressive enhancement only: every action works without it.
 */
export const PORTAL_CSS = `
:root { --ink:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#f6f8fa; --accent:#0a5bd3; --accent-ink:#fff;
  --danger:#b42318; --ok:#116329; --warn-bg:#fff8c5; --warn-line:#d4a72c; font-size:16px; }
* { box-sizing:border-box; }
body { margin:0; font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); background:#fff; line-height:1.45; }
a { color:var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible
  { outline:3px solid #1f6feb; outline-offset:2px; }
.skip { position:absolute; left:-999px; top:0; background:#fff; padding:.5rem; }
.skip:focus { left:.5rem; z-index:10; }
header.top { display:flex; align-items:center; gap:1rem; flex-wrap:wrap; padding:.6rem 1.25rem; background:#0d1117; color:#fff; }
header.top a { color:#fff; }
header.top .brand { font-weight:700; font-size:1.1rem; text-decoration:none; margin-right:.5rem; }
header.top form { margin:0; display:flex; gap:.4rem; align-items:center; }
header.top label { font-size:.85rem; color:#c9d1d9; }
header.top select { padding:.25rem; }
header.top .who { margin-left:auto; font-size:.9rem; color:#c9d1d9; }
header.top button { background:transparent; color:#fff; border:1px solid #8b949e; }
.layout { display:flex; min-height:calc(100vh - 52px); }
nav.side { width:13rem; flex:none; background:var(--bg); border-right:1px solid var(--line); padding:1rem .5rem; }
nav.side ul { list-style:none; margin:0; padding:0; }
nav.side a { display:block; padding:.4rem .75rem; border-radius:6px; text-decoration:none; color:var(--ink); }
nav.side a[aria-current="page"] { background:#ddf4ff; font-weight:600; }
nav.side .group { font-size:.75rem; text-transform:uppercase; letter-spacing:.05em; color:var(--muted); margin:1rem .75rem .25rem; }
main { flex:1; min-width:0; padding:1.25rem 2rem 3rem; max-width:72rem; }
td { overflow-wrap:break-word; }
td code { overflow-wrap:anywhere; }
td.nowrap { white-space:nowrap; overflow-wrap:normal; }
h1 { font-size:1.5rem; margin:.25rem 0 1rem; }
h2 { font-size:1.15rem; margin:1.75rem 0 .75rem; }
table { border-collapse:collapse; width:100%; margin:.5rem 0 1rem; font-size:.92rem; }
th, td { text-align:left; padding:.45rem .6rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { background:var(--bg); font-weight:600; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
code, .mono { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:.88em; }
form.stack { display:grid; gap:.75rem; max-width:32rem; }
form.stack > button { justify-self:start; }
form.inline { display:flex; flex-wrap:wrap; gap:.75rem; align-items:flex-end; margin:.5rem 0 1rem; }
form.inline .field { display:grid; gap:.2rem; }
.field { display:grid; gap:.25rem; }
label { font-weight:600; font-size:.9rem; }
.hint { color:var(--muted); font-size:.85rem; font-weight:400; }
input[type=text], input[type=email], input[type=password], input[type=search], input[type=date], input[type=number], select, textarea {
  font:inherit; padding:.45rem .55rem; border:1px solid #8c959f; border-radius:6px; background:#fff; color:var(--ink); min-width:10rem; }
input[readonly] { background:var(--bg); }
textarea { min-height:8rem; font-family:ui-monospace,monospace; font-size:.85rem; }
button, .button { font:inherit; cursor:pointer; padding:.45rem .9rem; border-radius:6px; border:1px solid #1f2328; background:#f6f8fa; color:var(--ink); text-decoration:none; display:inline-block; }
button.primary { background:var(--accent); border-color:var(--accent); color:var(--accent-ink); font-weight:600; }
button.danger { background:#fff; border-color:var(--danger); color:var(--danger); }
.row-actions { display:flex; gap:.5rem; flex-wrap:wrap; }
.row-actions form, .row-actions form.inline { margin:0; flex-wrap:nowrap; gap:.4rem; }
table select { min-width:7rem; }
fieldset { border:1px solid var(--line); border-radius:6px; padding:.5rem .75rem; display:grid; gap:.5rem; }
legend { font-weight:600; font-size:.9rem; }
.notice { padding:.75rem 1rem; border-radius:6px; border:1px solid var(--line); background:var(--bg); margin:0 0 1rem; }
.notice.error { border-color:var(--danger); background:#ffebe9; }
.notice.ok { border-color:#4ac26b; background:#dafbe1; }
.notice.warn { border-color:var(--warn-line); background:var(--warn-bg); }
.secret-box { display:flex; gap:.5rem; align-items:center; flex-wrap:wrap; }
.secret-box input { width:min(100%, 34rem); font-family:ui-monospace,monospace; }
.notice h2 { margin-top:0; }
dl.summary { font-size:1.05rem; padding:1rem; border:1px solid var(--line); border-radius:8px; background:var(--bg); }
section h3 { font-size:1rem; margin:1.25rem 0 .5rem; }
.badge { display:inline-block; padding:.05rem .5rem; border-radius:999px; font-size:.8rem; border:1px solid var(--line); background:var(--bg); }
.badge.ok { color:var(--ok); border-color:#4ac26b; }
.badge.bad { color:var(--danger); border-color:var(--danger); }
.cards { display:grid; grid-template-columns:repeat(auto-fit,minmax(20rem,1fr)); gap:1rem; }
.card { border:1px solid var(--line); border-radius:8px; padding:1rem; }
.card h3 { margin:0 0 .5rem; font-size:1rem; }
svg.chart { width:100%; max-width:44rem; height:auto; display:block; }
svg.chart .bar { fill:#0a5bd3; }
svg.chart .bar.fail { fill:#cf222e; }
svg.chart text { font-size:11px; fill:#57606a; }
svg.chart .axis { stroke:#d0d7de; }
.figures { display:grid; grid-template-columns:repeat(auto-fit,minmax(min(100%,40rem),1fr)); gap:1rem; }
.figure-box { container-type:inline-size; }
.figure-box > .figure-narrow { display:none; }
@container (max-width: 38rem) { .figure-box > .figure-wide { display:none; } .figure-box > .figure-narrow { display:block; } }
.figure-scroll { overflow-x:auto; max-width:100%; }
.figure-scroll:focus-visible { outline:3px solid #1f6feb; outline-offset:2px; }
svg.figure { display:block; max-width:none; }
form.editor { max-width:52rem; }
.pair { display:flex; flex-wrap:wrap; gap:.5rem 1rem; align-items:flex-end; }
.pair > .field { flex:1 1 12rem; }
.choices { display:flex; flex-wrap:wrap; gap:.25rem 1rem; }
.choices label { font-weight:400; }
fieldset.rule { border-color:#8c959f; }
fieldset.rule > legend { font-weight:600; }
dl.facts.decision { display:block; }
dl.facts.decision dt { margin-top:.5rem; }
dl.facts.decision dd { overflow-wrap:anywhere; }
ul.checks { margin:0; padding-left:1rem; }
ul.range-links { list-style:none; display:flex; flex-wrap:wrap; gap:.5rem 1.25rem; padding:0; margin:0 0 .75rem; }
pre.transcript { background:#0d1117; color:#e6edf3; padding:1rem; border-radius:6px; overflow:auto; font-size:.8rem; white-space:pre-wrap; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.35rem 1rem; }
dl.facts dt { font-weight:600; }
dl.facts dd { margin:0; }
.signin { max-width:24rem; margin:8vh auto; padding:2rem; border:1px solid var(--line); border-radius:10px; }
.signin h1 { margin-top:0; }
.pager { display:flex; gap:1rem; margin:1rem 0; }
details.confirm summary { cursor:pointer; display:inline-block; padding:.45rem .9rem; border-radius:6px; border:1px solid var(--danger); color:var(--danger); }
details.confirm[open] { padding:.5rem; border:1px solid var(--danger); border-radius:6px; }
details.confirm form { margin:.5rem 0 0; }
.visually-hidden { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
.table-scroll { overflow-x:auto; max-width:100%; position:relative; }
.table-scroll:focus-visible { outline:3px solid #1f6feb; outline-offset:2px; }
.table-scroll table { margin-top:0; }
form.search-grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(11rem,1fr)); gap:.75rem 1rem; align-items:end; margin:.5rem 0 .25rem; }
form.search-grid input, form.search-grid select { min-width:0; width:100%; }
form.search-grid .search-actions { display:flex; gap:.5rem; align-items:center; }
form.search-grid details.more-filters { grid-column:1 / -1; }
form.search-grid details.more-filters summary { cursor:pointer; color:var(--accent); font-size:.92rem; padding:.2rem 0; }
form.search-grid .more-grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(11rem,1fr)); gap:.75rem 1rem; align-items:end; margin-top:.5rem; }
.menu-toggle { display:none; }
@media (max-width: 50rem) {
  header.top { padding:.5rem .75rem; gap:.5rem; }
  header.top .who { margin-left:0; flex-basis:100%; order:10; }
  header.top select { max-width:11rem; }
  .js .menu-toggle { display:inline-block; }
  .layout { display:block; min-height:0; }
  nav.side { width:auto; border-right:0; border-bottom:1px solid var(--line); padding:.5rem; }
  nav.side ul { display:grid; grid-template-columns:repeat(auto-fill,minmax(10rem,1fr)); gap:.1rem .5rem; }
  .js nav.side:not(.open) { display:none; }
  /* Lists wrap their tables in .table-scroll; anything else too wide scrolls inside main, never the page. */
  main { padding:1rem .9rem 2rem; overflow-x:auto; }
  p code, li code, dd code { overflow-wrap:anywhere; }
  dl.facts { grid-template-columns:1fr; gap:.1rem; }
  dl.facts dd { margin-bottom:.5rem; overflow-wrap:anywhere; }
  input[type=text], input[type=email], input[type=password], input[type=search], input[type=date], input[type=number], select, textarea { min-width:0; max-width:100%; }
  form.stack { max-width:100%; }
  form.search-grid, form.search-grid .more-grid { grid-template-columns:repeat(auto-fill,minmax(9rem,1fr)); gap:.6rem .75rem; }
}
`;

export const PORTAL_JS = `
'use strict';
// Copy buttons: <button data-copy="id-of-input">. Without script the field is still selectable.
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  button.hidden = false;
  button.addEventListener('click', function () {
    var field = document.getElementById(button.getAttribute('data-copy'));
    if (!field) return;
    field.select();
    var done = function () { var status = document.getElementById(button.getAttribute('data-copy') + '-status'); if (status) status.textContent = 'Copied.'; };
    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand('copy'); done(); });
    else { document.execCommand('copy'); done(); }
  });
});
// The navigation's Menu button on narrow screens (CSS shows it only there, and only with this script).
document.documentElement.classList.add('js');
var menuButton = document.querySelector('button.menu-toggle');
var menuNav = document.getElementById('portal-nav');
if (menuButton && menuNav) {
  var setMenu = function (open) { menuNav.classList.toggle('open', open); menuButton.setAttribute('aria-expanded', open ? 'true' : 'false'); };
  menuButton.addEventListener('click', function () {
    var open = menuButton.getAttribute('aria-expanded') !== 'true';
    setMenu(open);
    if (open) { var first = menuNav.querySelector('a'); if (first) first.focus(); }
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && menuButton.getAttribute('aria-expanded') === 'true') { setMenu(false); menuButton.focus(); }
  });
}
// Auto-submit selects that switch the environment.
document.querySelectorAll('select[data-autosubmit]').forEach(function (select) {
  select.addEventListener('change', function () { select.form.submit(); });
});
`;

/** The favicon: a vault door in the portal's accent colour (SVG, no external file). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="2" width="28" height="28" rx="6" fill="#0a5bd3"/><circle cx="16" cy="16" r="8" fill="none" stroke="#fff" stroke-width="3"/><path d="M16 8v16M8 16h16" stroke="#fff" stroke-width="2"/><circle cx="16" cy="16" r="2.5" fill="#fff"/></svg>`;

/** Content hashes in the asset URLs: cached for a year, replaced on upgrade. */
export const CSS_PATH = `/portal/assets/portal-${digest(PORTAL_CSS)}.css`;
export const JS_PATH = `/portal/assets/portal-${digest(PORTAL_JS)}.js`;
export const FAVICON_PATH = `/portal/assets/favicon-${digest(FAVICON_SVG)}.svg`;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
