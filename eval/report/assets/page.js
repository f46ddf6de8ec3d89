/* tribunal run page: draws the rows embedded as JSON, a page at a time. Text goes in as text nodes only. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("tribunal-page-data").textContent);
  var ROWS = DATA.rows, COMPARE = DATA.kind === "compare", PAGE = 100;
  var SEVERITY = { critical: 4, major: 3, minor: 2, neutral: 1 };
  var $ = function (id) { return document.getElementById(id); };
  var view = [], shown = 0;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function num(v) { return v === null || v === undefined ? "—" : (Math.round(v * 100) / 100).toString(); }
  function label(k) { return COMPARE ? DATA.heads[k].label : "judge"; }
  function rank(sev) { return SEVERITY[sev] || 0; }

  /* text with the spans of one side highlighted; offsets are code points (Array.from), not UTF-16 units */
  function highlight(text, spans, decorate) {
    var chars = Array.from(text), cuts = [0, chars.length], frag = document.createDocumentFragment();
    spans.forEach(function (sp) { cuts.push(Math.max(0, Math.min(sp.s, chars.length)), Math.max(0, Math.min(sp.e, chars.length))); });
    cuts = cuts.filter(function (c, i, all) { return all.indexOf(c) === i; }).sort(function (a, b) { return a - b; });
    for (var c = 0; c + 1 < cuts.length; c++) {
      var a = cuts[c], b = cuts[c + 1], piece = chars.slice(a, b).join("");
      var over = spans.filter(function (sp) { return sp.s <= a && sp.e >= b; });
      if (!over.length) { frag.appendChild(document.createTextNode(piece)); continue; }
      var mark = el("mark", "", piece), top = over[0];
      over.forEach(function (sp) { if (rank(sp.sev) > rank(top.sev)) top = sp; });
      mark.className = "sev-" + top.sev;
      mark.setAttribute("data-spans", over.map(function (sp) { return sp.id; }).join(" "));
      decorate(mark, over);
      frag.appendChild(mark);
    }
    return frag;
  }
  function judgeMarks(mark, over) {
    var all = over.every(function (sp) { return sp.hit; });
    mark.classList.add(all ? "hit" : "nohit");
    mark.title = over.map(function (sp) {
      return sp.sev + " · " + sp.cat + (sp.hit ? " · a rater marked it too" : " · no rater marked it");
    }).join("\n");
  }
  function raterMarks(mark, over) {
    var missedBy = [];
    over.forEach(function (sp) { sp.hit.forEach(function (h, k) { if (!h && missedBy.indexOf(k) < 0) missedBy.push(k); }); });
    mark.classList.add("rater");
    if (missedBy.length) mark.classList.add(missedBy.length === over[0].hit.length ? "missed" : "part");
    mark.title = over.map(function (sp) {
      var by = sp.hit.map(function (h, k) { return (h ? "found by " : "missed by ") + label(k); }).join(", ");
      return sp.rater + ": " + sp.sev + " · " + sp.cat + " · " + by;
    }).join("\n");
  }
  function line(who, text, spans, side, decorate) {
    var box = el("div", "line"), p = el("div", "text");
    box.appendChild(el("div", "who", who));
    p.setAttribute("data-side", side);
    p.appendChild(highlight(text, spans.filter(function (sp) { return sp.side === side && sp.s !== null; }), decorate));
    box.appendChild(p);
    return box;
  }
  function judgeSpans(row, k) {
    return row.j[k].spans.map(function (sp, n) { return Object.assign({ id: "j" + k + ":" + n }, sp); });
  }
  function raterSpans(row, names) {
    var out = [];
    names.forEach(function (name) {
      row.r[name].forEach(function (sp, n) { out.push(Object.assign({ id: "r:" + name + ":" + n, rater: name }, sp)); });
    });
    return out;
  }

  function header(row) {
    var h = el("header");
    h.appendChild(el("span", "", row.lp + " · " + row.sys + " · segment " + row.seg));
    row.j.forEach(function (j, k) {
      h.appendChild(el("span", "score", label(k) + " " + num(j.score)));
      if (j.status !== "scored") h.appendChild(el("span", "badge " + (j.status === "unscored" ? "unscored" : "notrun"),
        j.status + (j.reason ? ": " + j.reason : "")));
      j.degraded.forEach(function (d) { h.appendChild(el("span", "badge degraded", "degraded: " + d.role + (d.reason ? " (" + d.reason + ")" : ""))); });
      var lost = j.spans.filter(function (sp) { return sp.s === null; }).length;
      if (lost) h.appendChild(el("span", "badge ungrounded", lost + " span(s) not found in the text"));
      if (row.missed[k]) h.appendChild(el("span", "badge missed", row.missed[k] + " major error(s) missed" + (COMPARE ? " by " + label(k) : "")));
    });
    h.appendChild(el("span", "score", "human " + num(row.human)));
    if (row.dis !== null) h.appendChild(el("span", "", "|" + label(0) + " − human| " + num(row.dis)));
    if (COMPARE) h.appendChild(el("span", "", "Δ score " + num(row.diff.score)));
    h.appendChild(el("span", "", "item " + row.key));
    return h;
  }
  function rowNode(row) {
    var box = el("article", "row"), mode = $("raters").value, names = Object.keys(row.r);
    box.setAttribute("data-i", row.i);
    box.setAttribute("data-sys", row.sys);
    box.setAttribute("data-lp", row.lp);
    box.appendChild(header(row));
    var judged = row.j.map(function (j, k) { return judgeSpans(row, k); });
    judged.forEach(function (spans, k) {
      if (spans.some(function (sp) { return sp.side === "source" && sp.s !== null; }))
        box.appendChild(line("source · " + label(k), row.src, spans, "source", judgeMarks));
    });
    if (!judged.some(function (s) { return s.some(function (sp) { return sp.side === "source" && sp.s !== null; }); }))
      box.appendChild(line("source", row.src, [], "source", judgeMarks));
    judged.forEach(function (spans, k) { box.appendChild(line(label(k), row.tgt, spans, "target", judgeMarks)); });
    if (!names.length) box.appendChild(line("raters", "(no rater rated this cell)", [], "target", raterMarks));
    else if (mode === "merged") box.appendChild(line("raters (" + names.length + ")", row.tgt, raterSpans(row, names), "target", raterMarks));
    else names.forEach(function (name) { box.appendChild(line(name, row.tgt, raterSpans(row, [name]), "target", raterMarks)); });
    judged.forEach(function (spans, k) {
      var lost = spans.filter(function (sp) { return sp.s === null; });
      if (!lost.length) return;
      var ul = el("ul", "notfound");
      lost.forEach(function (sp) { ul.appendChild(el("li", "", label(k) + " marked «" + sp.text + "» (" + sp.sev + ", " + sp.cat + "): not found in the text")); });
      box.appendChild(ul);
    });
    row.j.forEach(function (j, k) {
      var fold = el("details", "transcript");
      fold.appendChild(el("summary", "", "transcript" + (COMPARE ? " of " + label(k) : "") + " (" + j.calls.length + " calls)"));
      fold.addEventListener("toggle", function () { if (fold.open && fold.childNodes.length === 1) transcript(fold, j); }, { once: false });
      box.appendChild(fold);
    });
    return box;
  }

  function value(v) {
    if (Array.isArray(v) && v.length && v[0] && typeof v[0] === "object" && "span" in v[0])
      return v.map(function (e) { return "«" + e.span + "» " + (e.severity || "") + " " + (e.subcategory || e.category || ""); }).join("; ");
    return typeof v === "string" ? v : JSON.stringify(v);
  }
  function fields(box, obj, skip) {
    Object.keys(obj || {}).forEach(function (k) {
      if (skip.indexOf(k) >= 0 || obj[k] === null || obj[k] === undefined) return;
      var f = el("div", "field"); f.appendChild(el("b", "", k + ": ")); f.appendChild(document.createTextNode(value(obj[k])));
      box.appendChild(f);
    });
  }
  function transcript(fold, j) {
    j.transcript.forEach(function (entry) {
      var box = el("div", "entry");
      box.appendChild(el("h4", "", [entry.stage, entry.role || entry.dimension].filter(Boolean).join(" / ")));
      fields(box, entry, ["stage", "role", "turns"]);
      (entry.turns || []).forEach(function (t) {
        var f = el("div", "field");
        f.appendChild(el("b", "", "round " + t.round + " · " + t.role + ": "));
        f.appendChild(document.createTextNode(t.text + (t.errors ? " → " + value(t.errors) : "")));
        box.appendChild(f);
      });
      fold.appendChild(box);
    });
    j.calls.forEach(function (call) {
      var box = el("div", "entry");
      box.appendChild(el("h4", "", "call " + [call.stage, call.role, call.subject].filter(Boolean).join(" / ") +
        " · " + call.signature + (call.reask ? " · re-ask " + call.reask : "")));
      var p = el("div", "field"); p.appendChild(el("b", "", "prompt")); box.appendChild(p); fields(box, call.prompt, []);
      var a = el("div", "field"); a.appendChild(el("b", "", "answer")); box.appendChild(a); fields(box, call.answer, []);
      if (call.error) fields(box, { error: call.error }, []);
      fold.appendChild(box);
    });
    if (j.raw) fields(fold, { "unusable answer": j.raw }, []);
  }

  var SORTS = {
    disagreement: ["largest disagreement with the human score", function (r) { return r.dis === null ? -1 : r.dis; }],
    missed: ["most missed major errors", function (r) { return Math.max.apply(null, r.missed); }],
    judge: ["judge score, worst first", function (r) { return r.j[0].score === null ? 1 : -r.j[0].score; }],
    human: ["human score, worst first", function (r) { return r.human === null ? 1 : -r.human; }],
    order: ["the run's order", function (r) { return -r.i; }]
  };
  if (COMPARE) SORTS = Object.assign({ differ: ["where the two judges differ most", function (r) { return -r.rank; }] }, SORTS);

  function keep(row, q, lp, sys, status) {
    if (lp && row.lp !== lp) return false;
    if (sys && row.sys !== sys) return false;
    if (status === "scored" && !row.j.some(function (j) { return j.status === "scored"; })) return false;
    if (status === "unscored" && !row.j.some(function (j) { return j.status !== "scored"; })) return false;
    if (status === "degraded" && !row.j.some(function (j) { return j.degraded.length; })) return false;
    if (status === "missed" && !row.missed.some(function (m) { return m > 0; })) return false;
    if (status === "ungrounded" && !row.j.some(function (j) { return j.spans.some(function (sp) { return sp.s === null; }); })) return false;
    if (q) {
      if (row._text === undefined) row._text = (row.src + "\n" + row.tgt).toLowerCase();
      if (row._text.indexOf(q) < 0) return false;
    }
    return true;
  }
  function refresh() {
    var q = $("q").value.trim().toLowerCase(), lp = $("lp").value, sys = $("sys").value, status = $("status").value;
    var key = SORTS[$("sort").value][1];
    view = ROWS.filter(function (r) { return keep(r, q, lp, sys, status); });
    view.sort(function (a, b) { return key(b) - key(a) || a.i - b.i; });
    $("list").textContent = "";
    shown = 0;
    more();
  }
  function more() {
    var frag = document.createDocumentFragment(), end = Math.min(view.length, shown + PAGE);
    for (; shown < end; shown++) frag.appendChild(rowNode(view[shown]));
    $("list").appendChild(frag);
    $("count").textContent = "showing " + shown + " of " + view.length + " rows (" + ROWS.length + " in the run" + (COMPARE ? "s' common cells" : "") + ")";
    $("more").hidden = shown >= view.length;
  }

  function options(select, values) {
    values.forEach(function (v) { var o = el("option", "", v); o.value = v; select.appendChild(o); });
  }
  Object.keys(SORTS).forEach(function (k) { var o = el("option", "", SORTS[k][0]); o.value = k; $("sort").appendChild(o); });
  function distinct(field) {
    var seen = {};
    ROWS.forEach(function (r) { seen[r[field]] = true; });
    return Object.keys(seen).sort();
  }
  options($("lp"), distinct("lp"));
  options($("sys"), distinct("sys"));
  ["sort", "lp", "sys", "status", "raters"].forEach(function (id) { $(id).addEventListener("change", refresh); });
  var typing = null;
  $("q").addEventListener("input", function () { clearTimeout(typing); typing = setTimeout(refresh, 150); });
  $("more").addEventListener("click", more);
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (seen) { if (seen[0].isIntersecting && shown < view.length) more(); }).observe($("end"));
  }
  refresh();
  document.body.setAttribute("data-ready", String(Math.round(performance.now())));
})();
