// egoworld view --scene: each button posts one edit of the scene review log, then the page reloads.
(function () {
  function field(row, name) {
    const el = row ? row.querySelector("[name=" + name + "]") : null;
    return el ? el.value : "";
  }
  document.querySelectorAll("button.sc").forEach(function (b) {
    b.addEventListener("click", async function () {
      const op = b.dataset.op;
      const row = b.closest("[data-row]");
      const li = b.closest("li");
      let value = {};
      if (op === "edit") {
        value = {category: field(row, "category"), description: field(row, "description"), key_state: field(row, "key_state")};
      } else if (op === "add") {
        const rel = field(row, "new_rel");
        value = {category: field(row, "category"), description: field(row, "description"), relation: rel ? [rel] : []};
      } else if (op === "rel_add") {
        value = {text: field(li, "new_rel")};
      } else if (op === "rel_edit") {
        value = {text: b.dataset.text, to: field(li, "rel")};
      } else if (op.indexOf("rel_") === 0) {
        value = {text: b.dataset.text};
      }
      const r = await fetch("/scene", {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({op: op, object: b.dataset.object || "", value: value})});
      if (r.ok) { window.location.reload(); }
      else { document.querySelector("[data-testid=scene-error]").textContent = (await r.json()).error; }
    });
  });
})();
