/// `GET /`: the counter screen, one self-contained page (no external files,
/// the counter PC may be offline).
///
/// It shows the camera (MJPEG from `/v1/preview.mjpeg`), the tracked card
/// quad drawn in SVG from the session's `frame` events, the current hint in
/// large type (the session's language: the hint text comes from the events),
/// alerts, the four steps, and the result with its stills. It polls for the
/// active session and follows it over Server-Sent Events. A token given as
/// `?access_token=` is passed on to every request.
enum OperatorPage {
    static let html = #"""
<!DOCTYPE html>
<html lang="zh-HK">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>HKID liveness station</title>
<style>
  :root { --ok:#1f9d55; --warn:#d97706; --bad:#c0392b; --ink:#f4f6f8; --dim:#8a96a3; --bg:#11161c; --panel:#1b232c; }
  * { box-sizing: border-box; }
  body { margin:0; font-family: "Noto Sans CJK TC","Noto Sans TC","PingFang HK","Microsoft JhengHei",system-ui,sans-serif;
         background:var(--bg); color:var(--ink); }
  header { display:flex; align-items:center; gap:16px; padding:10px 20px; background:var(--panel); }
  header h1 { font-size:20px; margin:0; font-weight:600; flex:1; }
  header select, header button { font-size:16px; padding:6px 12px; border-radius:6px; border:1px solid #394654;
         background:#24303b; color:var(--ink); }
  header button.primary { background:#2563eb; border-color:#2563eb; }
  header button:disabled { opacity:.45; }
  main { display:grid; grid-template-columns: minmax(0,3fr) minmax(300px,2fr); gap:20px; padding:20px; }
  .stage { position:relative; background:#000; border-radius:10px; overflow:hidden; aspect-ratio:16/9; }
  .stage img, .stage svg { position:absolute; inset:0; width:100%; height:100%; }
  .stage img { object-fit:fill; }
  .stage .nocam { position:absolute; inset:0; display:flex; align-items:center; justify-content:center; color:var(--dim); font-size:22px; }
  #quad { fill:rgba(34,197,94,.12); stroke:#22c55e; stroke-width:6; stroke-linejoin:round; vector-effect:non-scaling-stroke; }
  .hint { font-size:44px; font-weight:700; line-height:1.25; margin:0 0 14px; min-height:2.5em; }
  .alert { display:none; font-size:26px; font-weight:700; padding:12px 16px; border-radius:8px; background:var(--warn); color:#111; margin-bottom:14px; }
  .alert.on { display:block; }
  ol.steps { list-style:none; padding:0; margin:0 0 18px; display:grid; grid-template-columns:repeat(4,1fr); gap:8px; }
  ol.steps li { background:var(--panel); border-radius:8px; padding:10px 8px; text-align:center; font-size:15px; color:var(--dim);
                border:2px solid transparent; }
  ol.steps li b { display:block; font-size:24px; }
  ol.steps li.now { border-color:#2563eb; color:var(--ink); }
  ol.steps li.done { background:#14532d; color:var(--ink); }
  .result { display:none; background:var(--panel); border-radius:10px; padding:14px; }
  .result.on { display:block; }
  .result h2 { margin:0 0 10px; font-size:28px; }
  .result.ok h2 { color:#4ade80; } .result.fail h2 { color:#f87171; }
  .result .stills { display:flex; gap:12px; align-items:flex-start; flex-wrap:wrap; }
  .result img { max-width:100%; border-radius:6px; background:#000; }
  .result img.card { width:62%; } .result img.head { width:30%; }
  .meta { color:var(--dim); font-size:14px; margin-top:10px; word-break:break-all; }
  .status { color:var(--dim); font-size:15px; }
</style>
</head>
<body>
<header>
  <h1>HKID 身份證活體檢測 · Liveness station</h1>
  <label class="status" for="cardType">Card</label>
  <select id="cardType"><option value="2018">2018 新智能身份證</option><option value="2003">2003 智能身份證</option></select>
  <select id="language"><option value="zh-HK">繁體中文</option><option value="en">English</option><option value="zh-CN">简体中文</option></select>
  <button id="start" class="primary">開始 Start</button>
  <button id="cancel" disabled>取消 Cancel</button>
</header>
<main>
  <section>
    <div class="stage" id="stage">
      <div class="nocam" id="nocam">Camera starting…</div>
      <img id="preview" alt="">
      <svg id="overlay" viewBox="0 0 1280 720" preserveAspectRatio="none"><polygon id="quad" points=""></polygon></svg>
    </div>
    <p class="status" id="status">Idle</p>
  </section>
  <section>
    <p class="hint" id="hint">—</p>
    <div class="alert" id="alert"></div>
    <ol class="steps" id="steps">
      <li data-step="1"><b>1</b><span class="label"></span></li>
      <li data-step="2"><b>2</b><span class="label"></span></li>
      <li data-step="3"><b>3</b><span class="label"></span></li>
      <li data-step="4"><b>4</b><span class="label"></span></li>
    </ol>
    <div class="result" id="result">
      <h2 id="resultTitle"></h2>
      <div class="stills" id="stills"></div>
      <div class="meta" id="resultMeta"></div>
    </div>
  </section>
</main>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("access_token");
const withToken = (path) => token ? path + (path.includes("?") ? "&" : "?") + "access_token=" + encodeURIComponent(token) : path;
const api = (path, options) => fetch(withToken(path), options).then(r => r.ok ? r.json() : Promise.reject(r));
const $ = (id) => document.getElementById(id);
const text = {
  "zh-HK": { steps: ["正面對準", "第一次翻轉", "復位", "第二次翻轉"], rot2018: ["向右", "向左"], rot2003: ["向上", "向下"],
             ok: "檢測成功", fail: { 2: "光線過亮", 3: "證件遺失", 4: "超時" }, cancelled: "已取消", interrupted: "已中斷",
             alerts: { FAR: "距離過遠", NEAR: "距離過近", OVERSPEED: "轉動速度過快" }, idle: "請按「開始」" },
  "en": { steps: ["Face the camera", "First rotation", "Back to front", "Second rotation"], rot2018: ["right", "left"], rot2003: ["up", "down"],
          ok: "Verified", fail: { 2: "Too much glare", 3: "Card lost", 4: "Time is up" }, cancelled: "Cancelled", interrupted: "Interrupted",
          alerts: { FAR: "Too far", NEAR: "Too close", OVERSPEED: "Too fast" }, idle: "Press Start" },
  "zh-CN": { steps: ["正面对准", "第一次翻转", "复位", "第二次翻转"], rot2018: ["向右", "向左"], rot2003: ["向上", "向下"],
             ok: "检测成功", fail: { 2: "光线过亮", 3: "证件丢失", 4: "超时" }, cancelled: "已取消", interrupted: "已中断",
             alerts: { FAR: "距离过远", NEAR: "距离过近", OVERSPEED: "转动速度过快" }, idle: "请按“开始”" },
};
let current = null, source = null, lang = "zh-HK", cardType = "2018", step = 0, quadTimer = null;

function words() { return text[lang] || text["zh-HK"]; }
function renderSteps() {
  const w = words(), rot = cardType === "2003" ? w.rot2003 : w.rot2018;
  const labels = [w.steps[0], w.steps[1] + " " + rot[0], w.steps[2], w.steps[3] + " " + rot[1]];
  document.querySelectorAll("#steps li").forEach((li, i) => {
    li.querySelector(".label").textContent = labels[i];
    li.className = i + 1 < step ? "done" : (i + 1 === step ? "now" : "");
  });
}
function setStep(n) { step = n; renderSteps(); }
function showAlert(name) {
  const a = $("alert");
  if (name) { a.textContent = "⚠ " + (words().alerts[name] || name); a.classList.add("on"); } else { a.classList.remove("on"); }
}
function drawQuad(card) {
  const quad = $("quad");
  clearTimeout(quadTimer);
  if (!card) { quad.setAttribute("points", ""); return; }
  quad.setAttribute("points", card.corners.map(p => p[0] + "," + p[1]).join(" "));
  quadTimer = setTimeout(() => quad.setAttribute("points", ""), 600);
}
function resetView(session) {
  lang = session.language; cardType = session.cardType; setStep(1); showAlert(null); drawQuad(null);
  $("result").className = "result"; $("hint").textContent = "…";
}
function onEvent(e) {
  switch (e.type) {
  case "operation":
    if (e.hint) $("hint").textContent = e.hint;
    if (["FAR", "NEAR", "OVERSPEED"].includes(e.status)) showAlert(e.status);
    else if (e.status === "VALID") showAlert(null);
    else if (e.status === "BEGIN") setStep(1);
    else if (e.status === "ORTH") setStep(2);
    else if (e.status === "RESET") setStep(3);
    else if (e.status === "LEFTDOWN") setStep(4);
    else if (e.status === "COMPLETE") setStep(5);
    break;
  case "frame": drawQuad(e.card); break;
  case "result": if (e.retCode === 1) setStep(Math.max(step, 2)); break;
  }
}
function showResult(s) {
  const w = words(), r = $("result"), stills = $("stills");
  stills.innerHTML = "";
  let title, ok = false;
  if (s.status === "completed") { title = "✔ " + w.ok; ok = true; }
  else if (s.status === "failed") { title = "✘ " + (w.fail[s.result && s.result.retCode] || s.status); }
  else if (s.status === "cancelled") title = w.cancelled;
  else title = w.interrupted;
  $("resultTitle").textContent = title;
  for (const [name, cls] of [["card", "card"], ["head", "head"], ["first-card", "card"]]) {
    if (s.links.images[name] && !(name === "first-card" && s.links.images.card)) {
      const img = document.createElement("img"); img.className = cls; img.alt = name; img.src = withToken(s.links.images[name]);
      stills.appendChild(img);
    }
  }
  $("resultMeta").textContent = "Session " + s.id + " · " + (s.result ? "retCode " + s.result.retCode : s.status)
    + " · " + s.frames.analysed + " frames analysed, " + s.frames.dropped + " dropped" + (s.reason ? " · " + s.reason : "");
  r.className = "result on " + (ok ? "ok" : "fail");
  $("hint").textContent = ok ? (lang === "en" ? "Detection complete" : (lang === "zh-CN" ? "识别完成" : "識別完成")) : title;
  if (ok) setStep(5);
  showAlert(null); drawQuad(null);
}
function follow(session) {
  if (source) source.close();
  current = session.id; resetView(session);
  $("cancel").disabled = false; $("start").disabled = true;
  $("status").textContent = "Session " + session.id + " · " + session.cardType + " · " + session.language;
  source = new EventSource(withToken("/v1/sessions/" + session.id + "/events"));
  source.onmessage = (m) => { try { onEvent(JSON.parse(m.data)); } catch (err) { $("status").textContent = "bad event: " + err; } };
  source.addEventListener("end", () => { source.close(); source = null; finished(session.id); });
  source.onerror = () => {
    $("status").textContent = "Event stream interrupted; reconnecting…";
    if (source) { source.close(); source = null; }
    setTimeout(() => finished(session.id), 500);
  };
}
function finished(id) {
  api("/v1/sessions/" + id).then(s => {
    if (s.status === "active") { follow(s); return; }
    current = null; $("cancel").disabled = true; $("start").disabled = false;
    $("status").textContent = "Session " + s.id + " ended: " + s.status;
    showResult(s);
  }).catch(() => {});
}
function poll() {
  if (!current) {
    api("/v1/sessions?status=active&limit=1").then(page => {
      if (page.sessions.length && !current) follow(page.sessions[0]);
    }).catch(() => {});
  }
}
function health() {
  api("/healthz").then(h => {
    $("nocam").style.display = h.camera.running ? "none" : "flex";
    if (h.camera.frameWidth && h.camera.frameHeight) {
      $("overlay").setAttribute("viewBox", "0 0 " + h.camera.frameWidth + " " + h.camera.frameHeight);
      $("stage").style.aspectRatio = h.camera.frameWidth + "/" + h.camera.frameHeight;
    }
  }).catch(() => {});
}
$("start").onclick = () => {
  $("start").disabled = true;
  api("/v1/sessions", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ cardType: $("cardType").value, language: $("language").value }) })
    .then(follow).catch(() => { $("start").disabled = false; });
};
$("cancel").onclick = () => { if (current) api("/v1/sessions/" + current + "/cancel", { method: "POST" }).catch(() => {}); };
$("preview").onerror = () => setTimeout(() => { $("preview").src = withToken("/v1/preview.mjpeg?r=" + Date.now()); }, 1000);
$("preview").src = withToken("/v1/preview.mjpeg");
lang = $("language").value; $("hint").textContent = words().idle; renderSteps();
api("/v1/sessions?limit=1").then(page => { if (page.sessions.length) { const s = page.sessions[0];
  if (s.status === "active") follow(s);
  else { lang = s.language; cardType = s.cardType; $("status").textContent = "Session " + s.id + " ended: " + s.status; showResult(s); } } }).catch(() => {});
health(); setInterval(health, 5000); setInterval(poll, 1000); poll();
</script>
</body>
</html>
"""#
}
