// The compare view: any two releases side by side, computed here from the data the page
// carries (compare_page.py writes it into #compare-data). No request is made, so the page
// works from file:// as from any static host. The releases chosen live in the address
// (#a=0.161.0&b=0.162.0), so a comparison can be linked.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("compare-data").textContent);
  const pickA = document.getElementById("a");
  const pickB = document.getElementById("b");
  const out = document.getElementById("result");
  const probed = D.releases.filter((v) => !(v in D.unavailable));
  for (const pick of [pickA, pickB]) {
    for (const v of probed) pick.add(new Option(v, v));
  }

  function chosen() {
    const given = new URLSearchParams((location.hash || location.search).replace(/^[#?]/, ""));
    const a = probed.includes(given.get("a")) ? given.get("a") : D.start[0];
    const b = probed.includes(given.get("b")) ? given.get("b") : D.start[1];
    return [a, b];
  }

  function value(kind, key, subject, v) {
    if (kind === "verdict") {
      const cell = (D.cells[v] || {})[key];
      return cell ? cell[0] : null;
    }
    if (kind === "observed") {
      const cell = (D.cells[v] || {})[subject];
      if (!cell) return null;
      const name = key.slice(subject.length + 1);
      const observed = D.values[cell[1]];
      return name in observed ? observed[name] : null;
    }
    const found = ((kind === "surface" ? D.surface : D.watch)[v] || {})[key];
    return found === undefined ? null : found;
  }

  function rows(a, b) {
    const keys = [];
    for (const [id, group] of D.findings) {
      const one = (D.cells[a] || {})[id];
      const other = (D.cells[b] || {})[id];
      if (!one && !other) continue;
      keys.push(["verdict", id, id, group]);
      const names = new Set([
        ...Object.keys(one ? D.values[one[1]] : {}),
        ...Object.keys(other ? D.values[other[1]] : {}),
      ]);
      for (const name of [...names].sort()) keys.push(["observed", id + "." + name, id, group]);
    }
    for (const aspect of D.aspects) keys.push(["surface", aspect, aspect, "surface"]);
    for (const [issue] of D.issues) keys.push(["watch", issue, issue, "watch"]);
    return keys;
  }

  function differences(a, b) {
    const span = probed.slice(probed.indexOf(a), probed.indexOf(b) + 1);
    const found = [];
    for (const [kind, key, subject, group] of rows(a, b)) {
      const before = value(kind, key, subject, a);
      const after = value(kind, key, subject, b);
      if (before === after) continue;
      // Where B's value began: the first release of the run of it that ends at B.
      let first = null;
      let last = null;
      let changes = 0;
      let previous;
      const series = span
        .map((v) => [v, value(kind, key, subject, v)])
        .filter(([, x]) => x !== null);
      series.forEach(([, x], i) => {
        if (i && x !== previous) changes += 1;
        previous = x;
      });
      for (let i = series.length - 1; i >= 0; i -= 1) {
        if (series[i][1] !== after) {
          last = series[i][0];
          break;
        }
        first = series[i][0];
      }
      found.push({ kind, key, subject, group, before, after, first, last, changes });
    }
    return found;
  }

  function shown(text) {
    if (text === null) return "not recorded";
    try {
      const parsed = JSON.parse(text);
      if (typeof parsed === "string") return parsed;
      if (Array.isArray(parsed) && parsed.length === 1 && typeof parsed[0] === "string") {
        return parsed[0];
      }
    } catch (error) {
      return text; // a verdict, a surface digest or a bug's state: words already
    }
    return text;
  }

  function element(tag, text, className) {
    const made = document.createElement(tag);
    if (text !== undefined) made.textContent = text;
    if (className) made.className = className;
    return made;
  }

  // A verdict as the grid shows it: its colour and its symbol, then its word.
  function verdictCell(verdict, side) {
    const cell = element("td", undefined, "verdict " + side);
    const state = D.verdicts[verdict] || ["n", "", "not recorded"];
    cell.append(element("span", state[1], "x " + state[0]), " " + (verdict || state[2]));
    return cell;
  }

  function render() {
    // Older first, whichever way they were picked.
    let [a, b] = [pickA.value, pickB.value];
    if (probed.indexOf(a) > probed.indexOf(b)) [a, b] = [b, a];
    history.replaceState(null, "", "#a=" + a + "&b=" + b);
    out.replaceChildren();
    if (a === b) {
      out.append(element("p", "The same release twice: nothing to compare."));
      return;
    }
    const found = differences(a, b);
    const subjects = new Set(found.map((d) => d.subject));
    const same = D.findings.filter(([id]) => !subjects.has(id)).length;
    out.append(
      element(
        "p",
        subjects.size + " row(s) differ between " + a + " and " + b + "; " + same +
          " finding(s) give the same verdict and values on both (ids masked).",
        "summary"
      )
    );
    if (!found.length) return;
    const table = element("table", undefined, "list");
    const head = element("tr");
    for (const title of ["kind", "row", "what", a, b, "first changed"]) {
      head.append(element("th", title));
    }
    table.append(head);
    for (const d of found) {
      const row = element("tr");
      row.dataset.key = d.key;
      row.append(element("td", d.group));
      const name = element("td");
      if (d.kind === "verdict" || d.kind === "observed") {
        const link = element("a", d.subject);
        link.href = "findings/" + d.subject + ".html#v" + b;
        name.append(link);
      } else {
        name.textContent = d.subject;
      }
      row.append(name);
      row.append(element("td", d.kind === "observed" ? d.key.slice(d.subject.length + 1) : d.kind));
      for (const [found, side] of [[d.before, "before"], [d.after, "after"]]) {
        if (d.kind === "verdict") {
          row.append(verdictCell(found, side));
        } else {
          row.append(element("td", shown(found), "val " + side));
        }
      }
      const where = d.first
        ? d.first + " (last same: " + (d.last || "-") + ")" + (d.changes > 1 ? ", changed " + d.changes + " times" : "")
        : "";
      row.append(element("td", where));
      table.append(row);
    }
    out.append(table);
  }

  [pickA.value, pickB.value] = chosen();
  pickA.addEventListener("change", render);
  pickB.addEventListener("change", render);
  window.addEventListener("hashchange", () => {
    [pickA.value, pickB.value] = chosen();
    render();
  });
  render();
})();
