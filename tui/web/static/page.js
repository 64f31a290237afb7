// benchlab session page: a terminal (xterm.js) connected to this participant's app over one WebSocket.
// Timing: every keydown is stamped with its event timeStamp (performance.now() clock) and sent just before the
// key's bytes; the app marks each stimulus frame with OSC 7717 ("onset;<mark>"), stamped here on the next
// animation frame after the write that carried it (the frame is painted); the clock offset to the server is
// estimated by ping/pong (the sample with the smallest round trip wins).
(function () {
  "use strict";
  var overlay = document.getElementById("overlay");
  var overlayTitle = document.getElementById("overlay-title");
  var overlayText = document.getElementById("overlay-text");
  var term = new Terminal({
    fontSize: 17, fontFamily: "DejaVu Sans Mono, Menlo, Consolas, monospace", cursorBlink: false,
    scrollback: 0, allowProposedApi: false, theme: { background: "#111111" }
  });
  var fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(document.getElementById("terminal"));
  fit.fit();
  var textarea = term.textarea;

  var ws = null, ready = false, started = false, ended = false, busy = false, retries = 0;
  var pendingMarks = [];
  var best = null;  // {rtt, offset}
  var pingTimer = null;
  var reconnecting = sessionStorage.getItem("benchlab-connected") === "1";

  function show(title, text) {
    overlayTitle.textContent = title;
    overlayText.textContent = text;
    overlay.hidden = false;
  }
  function hide() { overlay.hidden = true; focusTerminal(); }
  function focusTerminal() { if (!ended) term.focus(); }
  function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }

  function ping() { send(["ping", performance.now()]); }
  function onPong(sent, serverMs) {
    var now = performance.now();
    var rtt = now - sent;
    if (best === null || rtt < best.rtt) {
      best = { rtt: rtt, offset: (sent + now) / 2 - serverMs };
      send(["clock", { offset_ms: best.offset, rtt_ms: rtt }]);
    }
  }

  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(proto + location.host + location.pathname.replace(/\/$/, "") + "/ws");
    ws.binaryType = "arraybuffer";
    ready = false;
    ws.onopen = function () {
      send(["hello", { width: term.cols, height: term.rows, reconnect: reconnecting }]);
    };
    ws.onmessage = function (ev) {
      if (typeof ev.data !== "string") {
        var bytes = new Uint8Array(ev.data);
        chunks.push(bytes.length > 7 && bytes[0] === 27 && bytes[1] === 93 && bytes[2] === 55 && bytes[3] === 55 &&
                    bytes[4] === 49 && bytes[5] === 55 && bytes[6] === 59);  // starts with ESC ] 7717 ;
        term.write(bytes, afterWrite);
        return;
      }
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      switch (msg[0]) {
        case "pong": onPong(msg[1], msg[2]); break;
        case "queued":
          show("Please wait", "Your session starts in a moment (" + (msg[1] > 0 ? msg[1] + (msg[1] === 1 ?
               " person" : " people") + " ahead of you" : "you are next") + "). Keep this page open.");
          break;
        case "started":
          started = true; retries = 0;
          sessionStorage.setItem("benchlab-connected", "1");
          show(reconnecting ? "Welcome back" : "Starting your session…", "This takes a few seconds.");
          for (var i = 0; i < 5; i++) setTimeout(ping, 150 * i);
          clearInterval(pingTimer);
          pingTimer = setInterval(ping, 5000);
          break;
        case "ready": ready = true; hide(); break;
        case "busy":
          busy = true;
          show("This session is open in another tab or window",
               "Please continue there. If you closed it, this page continues in a few seconds.");
          break;
        case "end":
          ended = true;
          if (msg[1] === 0) show("Thank you", "The session has ended. You may close this tab.");
          else show("The session stopped", "Your answers so far are saved. Please reload this page; if this " +
                    "message comes back, contact the person who sent you the link.");
          break;
        case "failed":
          show("The session could not start", "Please reload the page in a minute.");
          break;
      }
    };
    ws.onclose = function () {
      ready = false;
      clearInterval(pingTimer);
      if (ended) return;
      if (started) reconnecting = true;
      if (!busy) show("Connection lost", "Reconnecting… Your answers so far are saved.");
      busy = false;
      retries += 1;
      setTimeout(connect, Math.min(5000, 500 * retries));
    };
  }

  // Onset stamps. The app writes the marker right after the stimulus frame, often as a chunk of its own that
  // arrives after that frame was painted: then the onset is the paint of the data before the marker. When the
  // marker shares its chunk with the frame (or the frame is not painted yet), the onset is the next paint.
  var chunks = [];          // per queued chunk: does it start with the marker?
  var parsed = 0;           // chunks parsed so far
  var paintedUpTo = 0, paintAt = 0, paintRequested = false;
  function paint() {
    paintRequested = false;
    paintedUpTo = parsed;
    paintAt = performance.now();
    var marks = pendingMarks;
    pendingMarks = [];
    for (var i = 0; i < marks.length; i++) send(["onset", { mark: marks[i], page_ms: paintAt }]);
  }
  function requestPaintStamp() {
    if (!paintRequested) { paintRequested = true; requestAnimationFrame(paint); }
  }
  function afterWrite() {
    chunks.shift();
    parsed += 1;
    requestPaintStamp();
  }
  function onsetMark(mark) {
    if (chunks[0] && paintedUpTo >= parsed && parsed > 0) send(["onset", { mark: mark, page_ms: paintAt }]);
    else pendingMarks.push(mark);
  }

  term.parser.registerOscHandler(7717, function (data) {
    var parts = data.split(";");
    if (parts[0] === "onset" && parts.length > 1) onsetMark(parts.slice(1).join(";"));
    else if (parts[0] === "end") ended = true;  // the app's end page: leaving is fine now
    return true;
  });

  var MODIFIERS = { Shift: 1, Control: 1, Alt: 1, Meta: 1, CapsLock: 1, AltGraph: 1 };
  window.addEventListener("keydown", function (e) {
    if (!ready || MODIFIERS[e.key]) return;
    send(["key", { key: e.key, page_ms: e.timeStamp }]);
  }, true);

  var MOUSE = /^\x1b\[<(\d+);\d+;\d+[Mm]$/;
  term.onData(function (data) {
    if (!ready) return;  // keys before the session is on screen are dropped
    var m = MOUSE.exec(data);
    if (m && (parseInt(m[1], 10) & 32)) return;  // mouse movement: never an answer, only traffic
    send(["stdin", data]);
  });
  term.onResize(function (size) { send(["resize", { width: size.cols, height: size.rows }]); });
  window.addEventListener("resize", function () { fit.fit(); });

  // A click that only brings the page into focus must not reach the app (it could land on an answer).
  window.addEventListener("mousedown", function (e) {
    if (document.activeElement !== textarea) {
      e.preventDefault(); e.stopPropagation(); focusTerminal();
    }
  }, true);
  window.addEventListener("focus", focusTerminal);
  window.addEventListener("beforeunload", function (e) {
    if (started && !ended) { e.preventDefault(); e.returnValue = ""; return ""; }
  });

  // The text on screen (browser tests and the bench probe read it; it is what the participant already sees).
  window.benchlabScreen = function () {
    var buf = term.buffer.active, lines = [];
    for (var i = 0; i < term.rows; i++) {
      var line = buf.getLine(buf.viewportY + i);
      lines.push(line ? line.translateToString(true) : "");
    }
    return lines.join("\n");
  };
  window.benchlabState = function () { return { ready: ready, started: started, ended: ended }; };

  focusTerminal();
  connect();
})();
