/// `GET /`: the counter screen, one self-contained page (no external files,
/// the counter PC may be offline).
///
/// It shows the camera (MJPEG from `/v1/preview.mjpeg`), the tracked card
/// quad drawn in SVG from the session's `frame` events, the current hint in
/// large type (the session's language: the hint text comes from the events),
/// alerts, the four steps (their directions as the session's challenge asked),
/// and the result with its stills and liveness verdict. Every line is in
/// the session's language (zh-HK, en, zh-CN); it fits a counter screen and,
/// in one column, a phone (390 px). It polls for the
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
  header { display:flex; flex-wrap:wrap; align-items:center; gap:10px 16px; padding:10px 20px; background:var(--panel); }
  header h1 { font-size:20px; margin:0; font-weight:600; flex:1 1 260px; }
  header .controls { display:flex; flex-wrap:wrap; align-items:center; gap:10px; }
  header select, header button { flex:none; font-size:16px; padding:6px 12px; border-radius:6px; border:1px solid #394654;
         background:#24303b; color:var(--ink); }
  /* Room for the whole option text beside the arrow (the last character was cut). */
  header select { padding-right:32px; }
  #cardType { min-width:12.5em; }
  header button.primary { background:#2563eb; border-color:#2563eb; }
  header button:disabled { opacity:.45; }
  main { display:grid; grid-template-columns: minmax(0,3fr) minmax(300px,2fr); gap:20px; padding:20px; }
  /* A phone or a narrow window: one column, steps two by two. */
  @media (max-width: 820px) {
    main { grid-template-columns: minmax(0,1fr); padding:12px; gap:12px; }
    header { padding:10px 12px; }
    header h1 { font-size:18px; }
    .hint { font-size:30px !important; }
    ol.steps { grid-template-columns:repeat(2,1fr) !important; }
  }
  .stage { position:relative; background:#000; border-radius:10px; overflow:hidden; aspect-ratio:16/9; }
  .stage img, .stage svg { position:absolute; inset:0; width:100%; height:100%; }
  .stage img { object-fit:fill; }
  .stage .nocam { position:absolute; inset:0; display:flex; align-items:center; justify-content:center; color:var(--dim); font-size:22px; }
  #quad { fill:rgba(34,197,94,.12); stroke:#22c55e; stroke-width:6; stroke-linejoin:round; vector-effect:non-scaling-stroke; }
  .hint { font-size:44px; font-weight:700; line-height:1.25; margin:0 0 14px; min-height:2.5em; }
  .alert { display:none; font-size:26px; font-weight:700; padding:12px 16px; border-radius:8px; background:var(--warn); color:#111; margin-bottom:14px; }
  .alert.on { display:block; }
  /* minmax(0,1fr): a long label wraps inside its own step, never widens the row. */
  ol.steps { list-style:none; padding:0; margin:0 0 18px; display:grid; grid-template-columns:repeat(4,minmax(0,1fr)); gap:8px; }
  ol.steps li { background:var(--panel); border-radius:8px; padding:10px 6px; text-align:center; font-size:15px; color:var(--dim);
                border:2px solid transparent; min-width:0; }
  /* Chinese has no spaces: keep-all lets a line break only between the
     label's parts and at punctuation, never inside a word ("第一次翻轉",
     "已結束"); English still breaks at its spaces ("Second / rotation"). */
  ol.steps li, .status, .meta { word-break:keep-all; line-break:strict; }
  ol.steps li .label span { display:inline-block; margin:0 .15em; }
  ol.steps li b { display:block; font-size:24px; }
  ol.steps li.now { border-color:#2563eb; color:var(--ink); }
  ol.steps li.done { background:#14532d; color:var(--ink); }
  /* Where an ended (cancelled, failed, interrupted) session stopped: reached, not grey. */
  ol.steps li.stopped { border-color:var(--dim); color:var(--ink); }
  .result { display:none; background:var(--panel); border-radius:10px; padding:14px; }
  .result.on { display:block; }
  .result h2 { margin:0 0 10px; font-size:28px; }
  .result.ok h2 { color:#4ade80; } .result.fail h2 { color:#f87171; }
  .result .stills { display:flex; gap:12px; align-items:flex-start; flex-wrap:wrap; }
  .result img { max-width:100%; border-radius:6px; background:#000; }
  .result img.card { width:62%; } .result img.head { width:30%; }
  .meta { color:var(--dim); font-size:14px; margin-top:10px; overflow-wrap:anywhere; }
  /* A figure and its word ("已分析 160 幀") stay on one line. */
  .nobreak { white-space:nowrap; }
  .id { word-break:break-all; }
  .status { color:var(--dim); font-size:15px; }
</style>
</head>
<body>
<header>
  <h1>HKID 身份證活體檢測 · Liveness station</h1>
  <div class="controls">
  <label class="status" for="cardType" id="cardLabel">證件</label>
  <select id="cardType"><option value="2018">2018 新智能身份證</option><option value="2003">2003 智能身份證</option></select>
  <select id="language" aria-label="Language 語言"><option value="zh-HK">繁體中文</option><option value="en">English</option><option value="zh-CN">简体中文</option></select>
  <button id="start" class="primary">開始</button>
  <button id="cancel" disabled>取消</button>
  </div>
</header>
<main>
  <section>
    <div class="stage" id="stage">
      <div class="nocam" id="nocam">鏡頭啟動中…</div>
      <img id="preview" alt="">
      <svg id="overlay" viewBox="0 0 1280 720" preserveAspectRatio="none"><polygon id="quad" points=""></polygon></svg>
    </div>
    <p class="status" id="status">閒置</p>
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
      <div class="meta" id="resultLiveness"></div>
    </div>
  </section>
</main>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("access_token");
const withToken = (path) => token ? path + (path.includes("?") ? "&" : "?") + "access_token=" + encodeURIComponent(token) : path;
const api = (path, options) => fetch(withToken(path), options).then(r => r.ok ? r.json() : Promise.reject(r));
const $ = (id) => document.getElementById(id);
const layoutCheck = new URLSearchParams(location.search).has("layout-check");
const text = {
  "zh-HK": { steps: ["正面對準", "第一次翻轉", "復位", "第二次翻轉"],
             ok: "檢測成功", fail: { 2: "光線過亮", 3: "證件遺失", 4: "超時", 5: "疑似偽造證件" }, cancelled: "已取消", interrupted: "已中斷",
             dirs: { right: "向右", left: "向左", up: "向上", down: "向下" },
             liveness: "防偽檢測", verdicts: { genuine: "真證件", spoof: "疑似偽造", pending: "未完成", unmeasured: "未能量度" },
             modes: { enforce: "執行", report: "只記錄" }, challenges: { fixed: "固定方向", random: "隨機方向" },
             alerts: { FAR: "距離過遠", NEAR: "距離過近", OVERSPEED: "轉動速度過快" }, idle: "請按「開始」",
             session: "檢測", ended: "已結束", colon: "：", idleStatus: "閒置", camera: "鏡頭啟動中…", card: "證件",
             start: "開始", cancel: "取消", cardTypes: { 2018: "2018 新智能身份證", 2003: "2003 智能身份證" },
             reconnecting: "事件連線中斷，重新連線中…", frames: ["已分析 # 幀", "略過 # 幀"], comma: "，",
             statuses: { completed: "成功", failed: "失敗", cancelled: "已取消", interrupted: "已中斷", active: "進行中" },
             reasons: [["cancelled by the operator", "操作員已取消"], ["the station shut down", "檢測站已關閉"],
                       ["the video source ended", "影像來源已結束"], ["storage full", "儲存空間已滿"],
                       ["the camera failed", "鏡頭故障"], ["the camera is not running", "鏡頭未有運作"],
                       ["the video source did not start again", "影像來源未能重新開始"],
                       ["recording could not start", "未能開始錄影"],
                       ["the station stopped during the session", "檢測站於檢測期間停止，重新啟動後已復原"],
                       ["the station stopped while the session was being ended", "檢測站於結束檢測時停止，重新啟動後已封存"],
                       ["the event log could not be written", "未能寫入事件記錄"]], otherReason: "其他原因" },
  "en": { steps: ["Face the camera", "First rotation", "Back to front", "Second rotation"],
          ok: "Verified", fail: { 2: "Too much glare", 3: "Card lost", 4: "Time is up", 5: "Not a genuine card" }, cancelled: "Cancelled", interrupted: "Interrupted",
          dirs: { right: "right", left: "left", up: "up", down: "down" },
          liveness: "Liveness", verdicts: { genuine: "genuine", spoof: "spoof", pending: "pending", unmeasured: "unmeasured" },
          modes: { enforce: "enforced", report: "report only" }, challenges: { fixed: "fixed challenge", random: "random challenge" },
          alerts: { FAR: "Too far", NEAR: "Too close", OVERSPEED: "Too fast" }, idle: "Press Start",
          session: "Session", ended: "ended", colon: ": ", idleStatus: "Idle", camera: "Camera starting…", card: "Card",
          start: "Start", cancel: "Cancel", cardTypes: { 2018: "2018 smart ID card (new)", 2003: "2003 smart ID card" },
          reconnecting: "Event stream interrupted; reconnecting…", frames: ["# frames analysed", "# dropped"], comma: ", ",
          statuses: { completed: "completed", failed: "failed", cancelled: "cancelled", interrupted: "interrupted", active: "active" },
          reasons: [], otherReason: null },
  "zh-CN": { steps: ["正面对准", "第一次翻转", "复位", "第二次翻转"],
             ok: "检测成功", fail: { 2: "光线过亮", 3: "证件丢失", 4: "超时", 5: "疑似伪造证件" }, cancelled: "已取消", interrupted: "已中断",
             dirs: { right: "向右", left: "向左", up: "向上", down: "向下" },
             liveness: "防伪检测", verdicts: { genuine: "真证件", spoof: "疑似伪造", pending: "未完成", unmeasured: "未能测量" },
             modes: { enforce: "执行", report: "只记录" }, challenges: { fixed: "固定方向", random: "随机方向" },
             alerts: { FAR: "距离过远", NEAR: "距离过近", OVERSPEED: "转动速度过快" }, idle: "请按“开始”",
             session: "检测", ended: "已结束", colon: "：", idleStatus: "闲置", camera: "镜头启动中…", card: "证件",
             start: "开始", cancel: "取消", cardTypes: { 2018: "2018 新智能身份证", 2003: "2003 智能身份证" },
             reconnecting: "事件连接中断，重新连接中…", frames: ["已分析 # 帧", "略过 # 帧"], comma: "，",
             statuses: { completed: "成功", failed: "失败", cancelled: "已取消", interrupted: "已中断", active: "进行中" },
             reasons: [["cancelled by the operator", "操作员已取消"], ["the station shut down", "检测站已关闭"],
                       ["the video source ended", "影像来源已结束"], ["storage full", "存储空间已满"],
                       ["the camera failed", "镜头故障"], ["the camera is not running", "镜头未有运行"],
                       ["the video source did not start again", "影像来源未能重新开始"],
                       ["recording could not start", "未能开始录像"],
                       ["the station stopped during the session", "检测站于检测期间停止，重新启动后已恢复"],
                       ["the station stopped while the session was being ended", "检测站于结束检测时停止，重新启动后已封存"],
                       ["the event log could not be written", "未能写入事件记录"]], otherReason: "其他原因" },
};
let current = null, source = null, lang = "zh-HK", cardType = "2018", step = 0, quadTimer = null;
/* The first rotation the session asked for (a random challenge may ask for
   left or down first); null: the SDK's for the card type (right, or up). */
let firstRotation = null;
const opposite = { right: "left", left: "right", up: "down", down: "up" };

function words() { return text[lang] || text["zh-HK"]; }
let stoppedAt = 0;
function renderSteps() {
  const w = words();
  const first = firstRotation || (cardType === "2003" ? "up" : "right");
  const rot = [w.dirs[first], w.dirs[opposite[first]]];
  const labels = [[w.steps[0]], [w.steps[1], rot[0]], [w.steps[2]], [w.steps[3], rot[1]]];
  document.querySelectorAll("#steps li").forEach((li, i) => {
    const label = li.querySelector(".label");
    label.textContent = "";
    for (const part of labels[i]) { const span = document.createElement("span"); span.textContent = part; label.appendChild(span); }
    const n = i + 1;
    li.className = n < step ? "done" : (n === step ? (stoppedAt ? "stopped" : "now") : "");
  });
  checkLayout();
}
/* A reason in the page's language: the table's phrase the station's
   English reason starts with (or contains, for one that names a file
   first); one the table lacks is "other reason" (the English stays in the
   tooltip and the API). */
function reasonText(reason) {
  const w = words();
  if (!w.otherReason) return reason;
  const known = w.reasons.find(([english]) => reason.startsWith(english) || reason.includes(": " + english));
  return known ? known[1] : w.otherReason;
}
/* The frame counts, each figure kept on one line with its word. */
function framesNode(analysed, dropped) {
  const w = words(), node = document.createElement("span");
  w.frames.forEach((pattern, i) => {
    if (i) node.append(w.comma);
    const part = document.createElement("span"); part.className = "nobreak";
    part.textContent = pattern.replace("#", i ? dropped : analysed); node.append(part);
  });
  return node;
}
/* The controls in the page's language; the language menu shows it. */
function localStatus() {
  const w = words();
  $("cardLabel").textContent = w.card;
  $("nocam").textContent = w.camera;
  $("start").textContent = w.start; $("cancel").textContent = w.cancel;
  for (const option of $("cardType").options) option.textContent = w.cardTypes[option.value];
  for (const option of $("language").options) option.toggleAttribute("selected", option.value === lang);
  $("language").value = lang;
  if (!current && $("status").dataset.state !== "ended") $("status").textContent = w.idleStatus;
}
function sessionLine(s, ended) {
  const w = words(), line = $("status");
  line.textContent = "";
  line.append(w.session + " ");
  const id = document.createElement("span"); id.className = "id"; id.textContent = s.id; line.append(id);
  line.append(ended ? " " + w.ended + w.colon + (w.statuses[s.status] || s.status) : " · " + s.cardType + " · " + s.language);
  line.dataset.state = ended ? "ended" : "following";
  checkLayout();
}
/* The step an ended session had reached, from what it left: ORTH issued
   (or the first still) means step 2, RESET step 3, LEFTDOWN (the result
   stills of a completed session) all. */
function reachedStep(s) {
  if (s.status === "completed") return 5;
  const moments = (s.videoTimestamp || "").split("|");
  if (moments[2] && moments[2] !== "0") return 3;
  if ((moments[1] && moments[1] !== "0") || s.links.images["first-card"]) return 2;
  return 1;
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
  lang = session.language; cardType = session.cardType; firstRotation = (session.liveness || {}).firstRotation || null;
  stoppedAt = 0; setStep(1); showAlert(null); drawQuad(null);
  localStatus();
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
  if (e.type !== "frame") checkLayout();
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
  const meta = $("resultMeta");
  meta.textContent = w.session + " ";
  const id = document.createElement("span"); id.className = "id"; id.textContent = s.id; meta.append(id);
  meta.append(" · " + (s.result ? "retCode " + s.result.retCode : (w.statuses[s.status] || s.status)) + " · ");
  meta.append(framesNode(s.frames.analysed, s.frames.dropped));
  if (s.reason) {
    const why = document.createElement("span"); why.textContent = reasonText(s.reason); why.title = s.reason;
    meta.append(" · ", why);
  }
  /* The liveness decision: verdict, spoof score, mode and challenge. */
  const l = s.liveness || {}, live = $("resultLiveness");
  live.textContent = "";
  if (l.verdict) {
    live.textContent = w.liveness + " · " + (w.verdicts[l.verdict] || l.verdict)
      + (typeof l.spoofScore === "number" ? " · " + l.spoofScore.toFixed(3) : "")
      + " · " + (w.modes[l.mode] || l.mode || "") + (l.challenge ? " · " + (w.challenges[l.challenge] || l.challenge) : "");
    live.dataset.verdict = l.verdict;
  } else { delete live.dataset.verdict; }
  r.className = "result on " + (ok ? "ok" : "fail");
  $("hint").textContent = ok ? (lang === "en" ? "Detection complete" : (lang === "zh-CN" ? "识别完成" : "識別完成")) : title;
  // Keep the steps it reached (a page opened after the end starts at none).
  const reached = Math.max(step, reachedStep(s));
  stoppedAt = ok ? 0 : reached;
  setStep(ok ? 5 : reached);
  showAlert(null); drawQuad(null);
}
function follow(session) {
  if (source) source.close();
  current = session.id; resetView(session);
  $("cancel").disabled = false; $("start").disabled = true;
  sessionLine(session, false);
  source = new EventSource(withToken("/v1/sessions/" + session.id + "/events"));
  source.onmessage = (m) => { try { onEvent(JSON.parse(m.data)); } catch (err) { $("status").textContent = "bad event: " + err; } };
  source.addEventListener("end", () => { source.close(); source = null; finished(session.id); });
  source.onerror = () => {
    $("status").textContent = words().reconnecting;
    if (source) { source.close(); source = null; }
    setTimeout(() => finished(session.id), 500);
  };
}
function finished(id) {
  api("/v1/sessions/" + id).then(s => {
    if (s.status === "active") { follow(s); return; }
    current = null; $("cancel").disabled = true; $("start").disabled = false;
    lang = s.language; cardType = s.cardType; firstRotation = (s.liveness || {}).firstRotation || null;
    sessionLine(s, true);
    showResult(s);
  }).catch(() => {});
}
function poll() {
  checkLayout();
  if (!current) {
    api("/v1/sessions?status=active&limit=1").then(page => {
      if (page.sessions.length && !current) follow(page.sessions[0]);
    }).catch(() => {});
  }
}
/* `?layout-check`: the page writes what overflows its box into
   body[data-overflow] after each change of what it shows (the layout test
   reads it in a DOM dump, where timers may not have run). */
function checkLayout() { if (layoutCheck) document.body.dataset.overflow = overflowing().join(" "); }
function overflowing() {
  /* Wider than its box: its content (text included, measured as a range)
     reaches past its left or right edge, or it scrolls sideways. */
  const wide = (el) => {
    const box = el.getBoundingClientRect(), range = document.createRange();
    range.selectNodeContents(el);
    const content = range.getBoundingClientRect();
    return el.scrollWidth > el.clientWidth + 1
      || (content.width > 0 && (content.left < box.left - 1 || content.right > box.right + 1));
  };
  const found = [];
  if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) found.push("page");
  const name = (el) => el.id || (el.dataset.step ? "step" + el.dataset.step : el.tagName.toLowerCase());
  document.querySelectorAll("header, main > section, #status, #hint, #resultMeta, #resultLiveness, #steps, #steps li")
    .forEach(el => { if (wide(el)) found.push(name(el)); });
  document.querySelectorAll("#status, #resultMeta, #resultLiveness, #steps li")
    .forEach(el => { for (const word of splitWords(el)) found.push(name(el) + ":" + word); });
  return found;
}
/* Runs of Chinese characters (a word, or words with no space or punctuation
   between them) that a line break splits: on two lines, a range over the run
   has more than one box. */
function splitWords(el) {
  const split = [], range = document.createRange();
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const run of node.textContent.matchAll(/[\u3400-\u9fff]{2,}/g)) {
      range.setStart(node, run.index); range.setEnd(node, run.index + run[0].length);
      if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) split.push(run[0]);
    }
  }
  return split;
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
lang = $("language").value; $("hint").textContent = words().idle; renderSteps(); localStatus();
$("language").onchange = () => { if (!current) { lang = $("language").value; $("hint").textContent = words().idle; renderSteps(); localStatus(); } };
api("/v1/sessions?limit=1").then(page => { if (page.sessions.length) { const s = page.sessions[0];
  if (s.status === "active") follow(s);
  else { lang = s.language; cardType = s.cardType; firstRotation = (s.liveness || {}).firstRotation || null;
         localStatus(); sessionLine(s, true); showResult(s); } } }).catch(() => {});
health(); setInterval(health, 5000); setInterval(poll, 1000); poll();
</script>
</body>
</html>
"""#
}
