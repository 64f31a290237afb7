// benchlab's native participant page: shows the views the server sends, stamps onsets and responses on the page's
// performance.now() clock, keeps a heartbeat, and reconnects. No external code.
(function () {
  "use strict";
  var view = document.getElementById("view"), cover = document.getElementById("cover");
  var progress = document.getElementById("progress");
  var token = location.pathname.split("/")[2] || "";
  var ws = null, current = null, onset = null, lastPong = 0, connected = false, everConnected = false;
  var outageKeys = 0, finished = false, best = null, hiddenAt = null, minTimer = null, maxTimer = null;
  var minDone = true; // the view's minimum time (min_ms) has passed

  function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }
  function now() { return performance.now(); }

  function device() {
    var mm = function (q) { return !!(window.matchMedia && window.matchMedia(q).matches); };
    var query = {};
    new URLSearchParams(location.search).forEach(function (v, k) { if (k.length < 64) query[k] = v.slice(0, 200); });
    return { width: innerWidth, height: innerHeight, screen_w: screen.width, screen_h: screen.height,
      touch: navigator.maxTouchPoints || 0, coarse: mm("(pointer: coarse)"), fine: mm("(any-pointer: fine)"),
      query: query };
  }

  function connect() {
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/s/" + token + "/ws");
    var mine = ws;
    ws.onopen = function () {
      var hello = device(); hello.reconnect = everConnected; hello.outage_keys = outageKeys;
      outageKeys = 0; lastPong = now(); connected = true; everConnected = true;
      send(["hello", hello]); ping();
    };
    ws.onmessage = function (e) { if (mine === ws) receive(JSON.parse(e.data)); };
    ws.onclose = function () {
      if (mine !== ws) return;
      connected = false;
      if (!finished) { showCover(); setTimeout(connect, 1000); }
    };
  }

  function ping() { send(["ping", now()]); }

  function receive(msg) {
    var kind = msg[0];
    if (kind === "pong") {
      var t1 = now(), t0 = msg[1], rtt = t1 - t0;
      lastPong = t1;
      if (typeof t0 === "number" && (best === null || rtt <= best.rtt)) {
        best = { rtt: rtt, offset: (t0 + t1) / 2 - msg[2] };
        send(["clock", { offset_ms: best.offset, rtt_ms: rtt }]);
      }
    } else if (kind === "show") {
      hideCover(); render(msg[1]);
    } else if (kind === "busy") {
      // The session is still live elsewhere (another node releasing it): keep waiting, reconnect.
      document.getElementById("cover-text").textContent = "Your session is being moved. Please wait.";
      showCover();
    } else if (kind === "page" || kind === "gone") {
      finished = true; hideCover(); current = null; progress.textContent = "";
      view.innerHTML = "<div class=doc>" + msg[1] + "</div>";
      try { ws.close(); } catch (err) { /* already closed */ }
    }
  }

  function render(v) {
    current = v; onset = null;
    view.removeAttribute("data-onset");
    clearTimeout(minTimer); clearTimeout(maxTimer);
    progress.textContent = v.progress || "";
    view.className = "view-" + v.kind + (v.phase ? " phase-" + v.phase : "");
    view.innerHTML = v.html;
    if (v.kind === "end") {
      finished = true;
      if (v.message) { var p = document.createElement("p"); p.textContent = v.message; view.appendChild(p); }
      if (v.code) {
        var c = document.createElement("p"); c.className = "code"; c.textContent = "Completion code: " + v.code;
        view.appendChild(c);
      }
      if (v.withdraw && /^\/[A-Za-z0-9_\/-]+$/.test(v.withdraw)) {
        var w = document.createElement("p"), a = document.createElement("a");
        a.href = v.withdraw; a.id = "withdraw"; a.textContent = "Withdraw my data";
        w.appendChild(a); view.appendChild(w);
      }
      if (v.redirect && /^https?:\/\//.test(v.redirect)) setTimeout(function () { location.href = v.redirect; }, 1500);
    }
    var cont = view.querySelector("[data-act=continue]");
    minDone = !(v.kind === "trial" && v.min_ms > 0);
    if (v.kind === "trial" && (v.min_ms > 0 || v.min_seen > 0) && cont) {
      cont.disabled = true;
    }
    view.focus({ preventScroll: true });
    window.scrollTo(0, 0);
    requestAnimationFrame(function (t) {
      // The first animation frame after the view is in the page: its paint follows at the next frame.
      if (current !== v) return;
      onset = now();
      if (v.kind === "trial" && v.stimulus) send(["onset", { seq: v.seq, t: onset }]);
      view.setAttribute("data-onset", "1"); // stamped: input counts from now on (tests and probes wait for it)
      if (v.kind === "trial" && cont && v.min_ms > 0) minTimer = setTimeout(function () { minDone = true; refreshContinue(); }, v.min_ms);
      if (v.track_scroll) trackSeen(); // a passage that fits is seen whole at once
      refreshContinue();
      if (v.kind === "trial" && v.max_ms) maxTimer = setTimeout(function () { act("continue", "", onset + v.max_ms, "none", true); }, v.max_ms);
    });
  }

  function seenShare() {
    var el = document.getElementById("scroll-track");
    if (!el) return null;
    // within 2 px of the end counts as the end (fractional scroll positions never quite reach it)
    var inner = el.scrollHeight - el.clientHeight - el.scrollTop <= 2 ? 1 : (el.scrollTop + el.clientHeight) / el.scrollHeight;
    var r = el.getBoundingClientRect();
    if (el.scrollHeight <= el.clientHeight + 1 && r.bottom > innerHeight) {
      inner = Math.max(0, Math.min(1, (innerHeight - r.top) / Math.max(1, r.height)));
    }
    return Math.max(0, Math.min(1, inner));
  }
  var maxSeen = 0;
  function trackSeen() { var s = seenShare(); if (s !== null && s > maxSeen) maxSeen = s; refreshContinue(); }
  addEventListener("scroll", trackSeen, true);
  addEventListener("resize", trackSeen);
  // SORT's min_seen_share: Continue waits until that share of the passage has been on screen, as in the terminal.
  function seenEnough(v) { return !(v.min_seen > 0) || maxSeen + 1e-3 >= v.min_seen; }
  function refreshContinue() {
    var v = current;
    if (!v || v.kind !== "trial" || onset === null || !(v.min_ms > 0 || v.min_seen > 0)) return;
    var cont = view.querySelector("[data-act=continue]"), ok = seenEnough(v);
    if (cont) cont.disabled = !(minDone && ok);
    var hint = document.getElementById("seen-hint");
    if (hint && ok) hint.hidden = true;
  }

  function act(name, value, t, input, timedOut) {
    var v = current;
    if (!v || !connected) return false;
    if (v.kind === "trial" && onset === null) return false;
    if (v.kind === "trial" && name === "continue" && !timedOut && v.min_ms > 0 && t - onset < v.min_ms) return false;
    if (v.kind === "trial" && name === "continue" && !timedOut && v.min_seen > 0) {
      trackSeen();
      if (!seenEnough(v)) { var hint = document.getElementById("seen-hint"); if (hint) hint.hidden = false; return false; }
    }
    var msg = { seq: v.seq, act: name, value: value, t: t, input: input };
    if (v.track_scroll) { trackSeen(); msg.seen = maxSeen; }
    if (timedOut) msg.timed_out = true;
    current = null; maxSeen = 0;
    view.classList.add("sent");
    send(["act", msg]);
    return true;
  }

  function keyName(e) { return e.key === " " ? " " : e.key.toLowerCase(); }

  addEventListener("keydown", function (e) {
    if (e.repeat || e.ctrlKey || e.metaKey || e.altKey) {
      if ((e.ctrlKey || e.metaKey) && /^[cvxa]$/i.test(e.key)) { e.preventDefault(); conduct(e.key.toLowerCase() === "v" ? "paste" : "copy"); }
      return;
    }
    if (!connected) { if (!finished) outageKeys++; e.preventDefault(); return; }
    var v = current;
    if (!v) return;
    var k = keyName(e), a = v.keys && v.keys[k];
    if (v.kind === "trial" && onset === null) { if (a) { send(["log", { seq: v.seq, what: "early_key" }]); e.preventDefault(); } return; }
    if (!a) return;
    var target = e.target;
    if (target && target.tagName === "BUTTON" && (k === "enter" || k === " ")) return; // the button's click does it
    e.preventDefault();
    act(a[0], a[1], e.timeStamp, "key", false);
  });

  view.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button[data-act]") : null;
    if (!b || b.disabled) return;
    var kind = e.pointerType || (e.detail === 0 ? "key" : "mouse");
    if (!connected) { outageKeys++; return; }
    if (current && current.kind === "trial" && onset === null) { send(["log", { seq: current.seq, what: "early_key" }]); return; }
    act(b.getAttribute("data-act"), b.getAttribute("data-value") || "", lastDown && lastDown.b === b ? lastDown.t : e.timeStamp,
        lastDown && lastDown.b === b ? lastDown.kind : kind, false);
    lastDown = null;
  });
  var lastDown = null;
  view.addEventListener("pointerdown", function (e) {
    var b = e.target.closest ? e.target.closest("button[data-act]") : null;
    lastDown = b ? { b: b, t: e.timeStamp, kind: e.pointerType === "touch" ? "touch" : (e.pointerType === "pen" ? "pen" : "mouse") } : null;
  });

  function conduct(what, extra) {
    var m = { seq: current ? current.seq : (lastSeq()), what: what };
    if (extra) for (var k in extra) m[k] = extra[k];
    send(["log", m]);
  }
  var seenSeq = 0;
  function lastSeq() { return seenSeq; }
  ["copy", "cut", "paste", "contextmenu"].forEach(function (name) {
    document.addEventListener(name, function (e) { e.preventDefault(); conduct(name); });
  });
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { hiddenAt = now(); conduct("hidden"); }
    else if (hiddenAt !== null) { conduct("visible", { hidden_ms: now() - hiddenAt }); hiddenAt = null; }
  });
  addEventListener("blur", function () { conduct("blur"); });
  addEventListener("focus", function () { conduct("focus"); });
  var origRender = render;
  render = function (v) { seenSeq = v.seq; origRender(v); };

  function showCover() { if (!finished) cover.hidden = false; }
  function hideCover() { cover.hidden = true; }

  setInterval(function () { if (ws && ws.readyState === 1) ping(); }, 1000);
  setInterval(function () {
    if (!ws || ws.readyState !== 1) return;
    if (now() - lastPong > 2500) {
      // No answer from the server for 2.5 s: cover the stimulus, drop this connection, reconnect.
      connected = false; showCover();
      var dead = ws; ws = null;
      try { dead.close(); } catch (err) { /* gone */ }
      setTimeout(connect, 500);
    }
  }, 250);
  addEventListener("offline", function () { connected = false; showCover(); });

  connect();
})();
