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

  // Surface keys: "ASPECT KEY" -> its place in D.keys; a release without a surface file has
  // no values (not recorded), one that lacks a key has it ABSENT.
  const ABSENT = "(absent)";
  const keyIndex = new Map((D.keys || []).map((k, i) => [k, i]));
  const KEYS_PER_ASPECT = 40;
  const DELTA_LINES = 12;

  function value(kind, key, subject, v) {
    if (kind === "surface-key") {
      const cells = (D.key_cells || {})[v];
      if (!cells) return null;
      const at = cells[keyIndex.get(key)];
      return at === undefined || at < 0 ? ABSENT : D.key_values[at];
    }
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
    const bothKeyed = D.key_cells && D.key_cells[a] && D.key_cells[b];
    for (const aspect of D.aspects) {
      if (!bothKeyed) {
        keys.push(["surface", aspect, aspect, "surface"]); // an older history: digests only
        continue;
      }
      const changed = (D.keys || []).filter(
        (k) => k.startsWith(aspect + " ") && value("surface-key", k, aspect, a) !== value("surface-key", k, aspect, b)
      );
      for (const k of changed.slice(0, KEYS_PER_ASPECT)) keys.push(["surface-key", k, aspect, "surface"]);
      if (changed.length > KEYS_PER_ASPECT) {
        keys.push(["surface-more", aspect + " " + (changed.length - KEYS_PER_ASPECT), aspect, "surface"]);
      }
    }
    for (const [issue] of D.issues) keys.push(["watch", issue, issue, "watch"]);
    return keys;
  }

  function differences(a, b) {
    const span = probed.slice(probed.indexOf(a), probed.indexOf(b) + 1);
    const found = [];
    for (const [kind, key, subject, group] of rows(a, b)) {
      if (kind === "surface-more") {
        found.push({ kind, key, subject, group, more: Number(key.slice(subject.length + 1)) });
        continue;
      }
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

  function short(text, limit) {
    const said = text === null ? "not recorded" : text;
    return said.length <= limit ? said : said.slice(0, limit - 1) + "…";
  }

  // What changed from one surface value to the other, in short lines (as `codex-probe diff`
  // says it): an object's fields added, removed, changed; a list's items gone and come.
  function delta(before, after) {
    if (before === ABSENT) return ["new: " + short(after, 160)];
    if (after === ABSENT) return ["gone (was: " + short(before, 160) + ")"];
    let old;
    let now;
    try {
      old = JSON.parse(before);
      now = JSON.parse(after);
    } catch (error) {
      return [short(before, 160) + " -> " + short(after, 160)];
    }
    const lines = [];
    const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
    if (isObject(old) && isObject(now)) {
      for (const field of [...new Set([...Object.keys(old), ...Object.keys(now)])].sort()) {
        const [x, y] = [JSON.stringify(old[field]), JSON.stringify(now[field])];
        if (!(field in old)) lines.push("+ " + field + ": " + short(y, 120));
        else if (!(field in now)) lines.push("- " + field + ": " + short(x, 120));
        else if (x !== y) lines.push("~ " + field + ": " + short(x, 80) + " -> " + short(y, 80));
      }
    } else if (Array.isArray(old) && Array.isArray(now)) {
      const [was, is] = [old.map((x) => JSON.stringify(x)), now.map((x) => JSON.stringify(x))];
      for (const item of was) if (!is.includes(item)) lines.push("- " + short(item, 120));
      for (const item of is) if (!was.includes(item)) lines.push("+ " + short(item, 120));
    }
    if (!lines.length) lines.push(short(before, 160) + " -> " + short(after, 160));
    return lines.length > DELTA_LINES
      ? [...lines.slice(0, DELTA_LINES), "... and " + (lines.length - DELTA_LINES) + " more"]
      : lines;
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
      if (d.kind === "surface-more") {
        row.append(element("td", d.group), element("td", d.subject));
        const rest = element("td", d.more + " more key(s) differ: codex-probe diff --history HISTORY_DIR --from " + a + " --to " + b);
        rest.colSpan = 4;
        row.append(rest);
        table.append(row);
        continue;
      }
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
      if (d.kind === "surface-key") {
        // The key, then what changed in its value; each side's value in short beside it.
        const what = element("td", d.key.slice(d.subject.length + 1), "val");
        what.append(element("pre", delta(d.before, d.after).join("\n"), "keys"));
        row.append(what);
        row.append(element("td", short(d.before, 200), "val before"));
        row.append(element("td", short(d.after, 200), "val after"));
      } else {
        row.append(element("td", d.kind === "observed" ? d.key.slice(d.subject.length + 1) : d.kind));
        for (const [found, side] of [[d.before, "before"], [d.after, "after"]]) {
          if (d.kind === "verdict") {
            row.append(verdictCell(found, side));
          } else {
            row.append(element("td", shown(found), "val " + side));
          }
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
