// egoworld view: seek the video to the query time, review buttons, human answers.
(function () {
  const v = document.getElementById("player");
  if (v) {
    const start = parseFloat(v.dataset.start || "0") || 0;
    const q = v.dataset.query === "" ? NaN : parseFloat(v.dataset.query);
    v.addEventListener("loadedmetadata", function () {
      const target = isNaN(q) ? start : Math.min(q, v.duration || q);
      v.currentTime = target;
      const tick = document.getElementById("qtick");
      if (tick && v.duration) tick.style.left = (100 * target / v.duration) + "%";
      v.dataset.seeked = String(target);
    });
    if (v.dataset.clamp === "end" && !isNaN(q)) {
      // blind answering: nothing after the query time, as a model sees it
      v.addEventListener("timeupdate", function () {
        if (v.currentTime > q + 0.05) { v.pause(); v.currentTime = q; }
      });
    }
  }
  document.querySelectorAll("button.decide").forEach(function (b) {
    b.addEventListener("click", async function () {
      const reason = (document.getElementById("reason") || {}).value || "";
      // a rejection's causes: the ticked world fields and their corrected values (JSON text)
      const causes = [];
      document.querySelectorAll("input.cause:checked").forEach(function (c) {
        const v = document.querySelector("input.cause-value[data-index='" + c.dataset.index + "']");
        causes.push({index: parseInt(c.dataset.index, 10), value: v ? v.value : ""});
      });
      const r = await fetch(b.dataset.url, {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({decision: b.dataset.decision, reason: reason, causes: causes})});
      const data = await r.json();
      const st = document.querySelector("[data-testid=review-state]");
      if (!r.ok) { if (st) st.textContent = "error: " + data.error; return; }
      if (st) st.textContent = data.state ? data.state.decision : "none";
      document.body.dataset.saved = String(Date.now());
    });
  });
  document.querySelectorAll("button.mark").forEach(function (b) {
    b.addEventListener("click", async function () {
      const r = await fetch("/audit", {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({index: parseInt(b.dataset.index, 10), visible: b.dataset.visible === "1"})});
      if (r.ok) window.location.reload();
    });
  });
  const form = document.getElementById("answer-form");
  if (form) {
    form.addEventListener("submit", async function (e) {
      e.preventDefault();
      const fd = new FormData(form);
      const r = await fetch("/answer", {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({sample: form.dataset.sample, answer: fd.get("answer"), started: form.dataset.started})});
      if (r.ok) { window.location.reload(); }
      else { document.getElementById("answer-error").textContent = (await r.json()).error; }
    });
  }
})();
